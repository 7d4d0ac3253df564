"""Statistics of a membership-inference privacy audit (numpy and scipy only).

An audit plays many *games*: in an IN game the target record is in the generator's training
data, in an OUT game it is not, and the attack gives each game a score where a *higher score
means the attack believes the target was a member*. ``scores_in`` are the scores of the IN games,
``scores_out`` those of the OUT games. A threshold ``t`` defines the test "member iff score >= t",
with true-positive rate ``TPR = #{scores_in >= t} / n_in`` and false-positive rate
``FPR = #{scores_out >= t} / n_out``.

The modules provide

* exact binomial intervals (Clopper & Pearson 1934), :mod:`harness.audit.binomial`:
  :func:`clopper_pearson`, :func:`one_sided_bounds`;
* the ROC curve and its AUC with a DeLong (1988) confidence interval: :func:`roc_points`,
  :func:`auc_with_ci`, :func:`thin_curve` (:mod:`harness.audit.roc`);
* TPR at low FPR, the figure of merit of Carlini et al. (2022), "Membership Inference Attacks
  From First Principles": :func:`tpr_at_fpr` (:mod:`harness.audit.roc`);
* a statistically valid lower bound on the ``epsilon`` of an ``(epsilon, delta)``-DP generator
  (Jagielski, Ullman & Oprea 2020, "Auditing Differentially Private Machine Learning: How Private
  is Private SGD?"; Nasr et al. 2021, "Adversary Instantiation: Lower Bounds for Differentially
  Private Machine Learning"): :func:`epsilon_at_threshold`, :func:`select_threshold`,
  :func:`audit_epsilon` (:mod:`harness.audit.epsilon`).
"""
