#!/usr/bin/env bash
# The seed papers' privacy claims, audited by membership inference (tracker issue 17):
# both audit experiments on two bundled datasets, then one report over both.
# Usage: experiments/audits/mia_audit_claims.sh   (about an hour on 2 free cores)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/audits/mia_audit_claims
run() { privbench run -m hydra/launcher=local "$@" || [ $? -eq 1 ]; }  # exit 1: some trial failed (rows kept)
run experiment=mia_audit_epsilon dataset=adult,german_credit generator=identity hydra.sweep.dir=$out/epsilon_identity
run experiment=mia_audit_epsilon dataset=adult,german_credit generator=eps_private_smote \
  generator.epsilon=0.1,1,10 hydra.sweep.dir=$out/epsilon_eps_private_smote
run experiment=mia_audit_epsilon dataset=adult,german_credit generator=smote_dp,privbayes \
  generator.epsilon=0.1,1,50 hydra.sweep.dir=$out/epsilon_smote_dp
run experiment=mia_audit_exposure dataset=adult,german_credit \
  generator=identity,independent_marginals,eps_private_smote,smote_dp,mondrian,sdv_gaussian_copula,sdv_ctgan,sdv_tvae \
  hydra.sweep.dir=$out/exposure
privbench report "$out"/epsilon_* -o "$out/report_epsilon" --privacy mia_audit/epsilon_lb
privbench report "$out"/exposure -o "$out/report_exposure" --privacy mia_audit/auc
privbench leak-check "$out"  # shareable: no public hash, membership label or real row (issue 29)
