"""R-RAAB, SD2011 (§3.4, Table 1, Figs 1-2, §5 and Table 3): checks of Raab's first example.

Keys sex, age, region, placesize; five CART syntheses (generator seeds 0-4) of the whole
table (Table 1, Figs 1-2, Table 3 "All") and five of the 80 % training split, measured on the
training records (Table 3 "Train") and on the 1,000 control records (Table 3 "Ctrl"). The
syntheses are the replicates: every claim's uncertainty is a bootstrap over them (paired by
seed where two measures come from the same synthesis). GT-only numbers (Dorig, CAPd, the
levels of q and of the targets) are ``sanity`` checks: they validate the data and the formulas,
not a finding about synthesis.
"""

from __future__ import annotations

import math

import pandas as pd

from experiments.reproductions import raab_2024_paper as paper
from experiments.reproductions.raab_2024_view import (
    CART,
    CONTROL_METRIC,
    SD2011,
    honest_order,
    mean_of,
    measures,
    seed_record,
    series,
)
from harness.reproduction import (
    Check,
    ReproductionRun,
    exact,
    not_evaluable,
    ordered,
    trend,
    unavailable,
    within,
)
from harness.reproduction import uncertainty as unc
from harness.reproduction.checks import fmt

T1 = "tables/table1.md"
T3 = "tables/table3.md"
FIG = "figures/raab_disclosure.png"
GATE = "cart_synthpop@sd2011"


def _sd(run: ReproductionRun) -> pd.DataFrame:
    return measures(run, SD2011, CART)


def _whole(frame: pd.DataFrame, target: str = "depress", metric: str = "raab") -> pd.DataFrame:
    if frame.empty:
        return frame
    return frame[(frame["part"] == "all") & (frame["metric"] == metric) & (frame["target"] == target)]


def _n(values: pd.Series) -> str:
    n = len(values.dropna())
    return f"{n} synthes{'is' if n == 1 else 'es'}"


# ---------------------------------------------------------------------- GT-only (sanity)
def check_gt(run: ReproductionRun) -> list[Check]:
    """Dorig 53.3 %, CAPd 74 %, 3,459 q levels, 23 depress levels, 89 % never worked abroad (GT-only)."""
    dep = _whole(_sd(run))
    if dep.empty:
        return [
            unavailable("sd-dorig-depress", "SD2011 Dorig of depress (GT-only)", "53.3", "exact",
                        "no SD2011 trial on the whole table", kind="sanity")
        ]  # fmt: skip
    reason = "GT-only (the whole SD2011 table is the GT of every split-none trial): validates the data and formulas"
    return [
        exact("sd-dorig-depress", "SD2011 Dorig % for target depress from keys sex, age, region, placesize",
              '"53.3% (Dorig)"', float(dep["Dorig"].mean()), paper.DORIG_DEPRESS, kind="sanity", tol=0.05,
              digits=2, reason=reason),
        exact("sd-capd-depress", "SD2011 CAPd % for target depress", '"The corresponding rate from the GT (CAPd) was 74%"',
              float(dep["CAPd"].mean()), paper.CAPD_DEPRESS, kind="sanity", tol=0.5, digits=2,
              reason=reason + "; printed as an integer, so equal at the printed precision (ours 74.15; spec: ±0.1)"),
        exact("sd-q-levels", "Levels of q in the GT", '"has 3,459 levels in the GT"',
              _int(dep["n_levels_gt"]), paper.Q_LEVELS_GT, kind="sanity", reason=reason),
        exact("sd-depress-levels", "Levels of depress (with NA)", '"The depression score has 23 levels"',
              _int(dep["n_target_levels"]), paper.DEPRESS_LEVELS, kind="sanity",
              reason=reason + "; levels of GT ∪ SD (the release has no new level)"),
        exact("sd-workab-no-share", "Share (%) of SD2011 respondents with workab = NO",
              '"most survey respondents (89%) had never worked abroad"', _workab_no_share(), paper.WORKAB_NO_SHARE,
              kind="sanity", tol=0.5, digits=2, reason="GT marginal over all 5,000 records (NA in the denominator)"),
    ]  # fmt: skip


def _int(values: pd.Series) -> int | None:
    """The first value as an int (None when missing)."""
    number = pd.to_numeric(values, errors="coerce").dropna()
    return int(number.iloc[0]) if len(number) else None


def _workab_no_share() -> float:
    from harness.datasets.loader import load_dataset, load_spec

    frame = load_dataset(load_spec(SD2011)).frame
    return 100.0 * float((frame["workab"] == "NO").mean())


# ---------------------------------------------------------------------- §3.4 and Table 1 (claims)
def check_text(run: ReproductionRun) -> list[Check]:
    """§3.4 release-dependent numbers: q levels of GT ∪ SD, UiS, repU, income grouping, workab one-way."""
    frame = _sd(run)
    dep = _whole(frame)
    levels, uis, repu = (series(dep, c) for c in ("n_levels_all", "UiS", "repU"))
    plain = series(_whole(frame, "income"), "DiSCO")
    grouped = series(_whole(frame, "income", "raab_income20"), "DiSCO")
    uio = mean_of(dep, "UiO")
    gate = (GATE,)
    out = [
        within("sd-q-levels-union", "Levels of q in GT ∪ SD (mean over the syntheses) within ±10 % of 4,475",
               '"increases to 4,475 when GT and SD are combined"', None, 0.9 * paper.Q_LEVELS_ALL,
               1.1 * paper.Q_LEVELS_ALL, kind="claim", samples=levels, digits=0, depends_on=gate,
               method=f"{_n(levels)} (generator seeds)", reason="band ±10 % (ours; the paper prints one synthesis)"),
        within("sd-uis", "UiS: % of the SD records unique on q, 'almost 50 %' (band 40-50)",
               '"Almost 50% of the SD records have unique levels of q"', None, 40.0, 50.0, kind="claim",
               samples=uis, digits=2, depends_on=gate, method=f"{_n(uis)} (generator seeds)",
               reason=f"band 40-50 for 'almost 50 %' (ours); UiO (GT) is {fmt(uio, 1)} %"),
        within("sd-repu", "repU: % replicated uniques, about 15 % (band 12.5-17.5)", '"this reduces to 15% for repU"',
               None, 12.5, 17.5, kind="claim", samples=repu, digits=2, depends_on=gate,
               method=f"{_n(repu)} (generator seeds)", reason="band ±2.5 points (ours: the paper prints one synthesis, rounded)"),
    ]  # fmt: skip
    gain = (grouped - plain).dropna()
    record = seed_record(
        {"grouped − plain": gain}, "DiSCO(20 groups) − DiSCO(406 values) of income, paired by synthesis"
    )
    out.append(
        trend("sd-income-grouped", "Grouping income into 20 quantile groups increases its DiSCO",
              "DiSCO 4.90 % -> 6.14 % with 20 groups", f"{fmt(plain.mean(), 2)} % -> {fmt(grouped.mean(), 2)} %",
              bool(len(gain)) and float(gain.mean()) > 0, kind="claim", value={"plain": plain.mean(), "grouped": grouped.mean()},
              uncertainty=record, depends_on=gate, reason="ngroups_target: 20 (quantile groups, spec P10)")
    )  # fmt: skip
    out.append(_workab_one_way(frame))
    out.append(
        not_evaluable("sd-two-way-flags", "workab (one-way and two-way) and marital (two-way) are the targets flagged for checking",
                      '"The top two variables workab and marital are flagged as requiring checking; workab for both one-way and two-way relationships and marital for two-way"',
                      "raab_disclosure implements the one-way check of spec/metrics.md P10 only; synthpop's two-way "
                      "(key-target) check is not specified there. Testing it needs that check ported.")
    )  # fmt: skip
    return out


def _workab_one_way(frame: pd.DataFrame) -> Check:
    rows = _whole(frame, "workab")
    share = 100.0 * series(rows, "one_way_share")
    found = sorted(set(map(str, rows["one_way_level"]))) if len(rows) else []
    claim = "workab: the one-way check flags level NO (93 % of the disclosive records)"
    printed = '"it was the answer NO for workab that was flagged by the one-way check ... 93% of all disclosive records had this level"'
    if found != [paper.WORKAB_ONE_WAY[0]]:
        return trend("sd-workab-oneway", claim, printed, f"level(s) {'/'.join(found) or 'none'}", False, kind="claim",
                     uncertainty=unc.decided_by_test("the dominant level of every synthesis", "opposite"),
                     depends_on=(GATE,))  # fmt: skip
    return within(
        "sd-workab-oneway", claim, printed, None, 80.0, 100.0, kind="claim", samples=share, digits=1,
        depends_on=(GATE,), method=f"{_n(share)} (generator seeds)",
        reason="level NO in every synthesis; band = the one-way rule's threshold (80 %, spec P10); our share weights "
        "the DiSCO records by GT counts, synthpop's by SD counts",
    )  # fmt: skip


def check_table1(run: ReproductionRun) -> list[Check]:
    """Table 1 (target depress): means over the syntheses within tolerance bands; the nesting of the measures."""
    dep = _whole(_sd(run))
    source = {"mean_denom": "mean_denom_cells"}
    quick = "; quick profile: 2 syntheses instead of 5" if run.quick else ""
    out = []
    for j, column in enumerate(paper.TABLE1_COLUMNS):
        low, high, why = paper.TABLE1_BANDS[column]
        printed = [row[j] for row in paper.TABLE1]
        centre = sum(printed) / len(printed)
        values = series(dep, source.get(column, column))
        entry = unc.two_sample_difference(values, printed, f"{column}: ours − paper")
        record = unc.record(
            f"bootstrap interval (95 %) of mean(ours) − mean(paper) over our {_n(values)} and the paper's five; the "
            f"band [{low:g}, {high:g}] is shifted by the paper's mean", [entry] if entry else [], n=len(values),
            band=(low - centre, high - centre),
        )  # fmt: skip
        above = bool(len(values)) and float(values.min()) > max(printed)
        below = bool(len(values)) and float(values.max()) < min(printed)
        side = "; every synthesis of ours above the paper's five" if above else (
            "; every synthesis of ours below the paper's five" if below else "")  # fmt: skip
        out.append(
            within(f"t1-{column}", f"Table 1 {column} (target depress): the mean over the syntheses lies between {low:g} and {high:g}",
                   " / ".join(f"{v:.2f}" for v in printed) + f" (mean {centre:.2f})",
                   float(values.mean()) if len(values) else None, low, high, kind="claim", uncertainty=record, digits=2,
                   depends_on=(GATE,), evidence=[T1], reason=f"band: {why}{side}{quick}")
        )  # fmt: skip
    chains = [("iS", "DiS"), ("DiS", "DiSCO"), ("DiSCO", "DiSDiO"), ("DCAP", "DiSCO")]
    table = {c: series(dep, c) for c in ("iS", "DiS", "DiSCO", "DiSDiO", "DCAP")}
    held = [
        all(table[a].get(s, math.nan) >= table[b].get(s, math.nan) for a, b in chains)
        for s in table["iS"].index
    ]
    out.append(
        trend("t1-nesting", "Every synthesis: iS ≥ DiS ≥ DiSCO ≥ DiSDiO and DCAP ≥ DiSCO (nested by definition)",
              "64 % (iS) -> 33 % (DiS) -> ~9 % (DiSCO) -> ~6 % (DiSDiO); DCAP 'higher than for DiSCO'",
              f"holds in {sum(held)} of {len(held)} syntheses", bool(held) and all(held), kind="sanity",
              reason="each measure restricts the previous one's records (Appendix 1, Eqs. 9-12; ps_tq ≤ 1 in DCAP)",
              evidence=[T1])
    )  # fmt: skip
    means = [sum(col) / len(col) for col in zip(*paper.TABLE1)]
    text = {"iS": 64.0, "DiS": 33.0, "DiSCO": 9.0, "DiSDiO": 6.0}
    gap = max(abs(means[paper.TABLE1_COLUMNS.index(c)] - v) for c, v in text.items())
    out.append(
        exact("t1-text-vs-table", "§3.4's rounded rates (iS 64 %, DiS 33 %, DiSCO ~9 %, DiSDiO ~6 %) agree with Table 1's means: max |difference|",
              "Table 1 means 64.05 / 32.73 / 9.49 / 6.03", gap, 0.0, kind="arithmetic", tol=0.6, digits=2,
              reason="the paper's own numbers; tolerance 0.6 points for 'around'", evidence=[T1])
    )  # fmt: skip
    return out


# ---------------------------------------------------------------------- Figs 1-2
def check_figure_order(run: ReproductionRun) -> list[Check]:
    """Figs 1-2 (Table 3 "All"): income < depress < ls < marital < workab for DiSCO and DCAP."""
    frame = _sd(run)
    out = []
    for fig, measure, col in (("fig1", "DiSCO", 0), ("fig2", "DCAP", 4)):
        samples = {t: series(_whole(frame, t), measure) for t in paper.SD_TARGETS}
        printed = " < ".join(f"{t} {paper.TABLE3[t][col]:.2f}" for t in paper.SD_TARGETS)
        n = min(len(v) for v in samples.values())
        out.append(
            honest_order(ordered(f"{fig}-{measure.lower()}-order",
                    f"{measure} of the five SD2011 targets (whole table) rank as in Fig. {fig[-1]}: "
                    + " < ".join(paper.SD_TARGETS), printed, None, list(paper.SD_TARGETS), kind="claim", samples=samples,
                    digits=2, method=f"{n} syntheses (paired by generator seed)", depends_on=(GATE,), evidence=[T3, FIG]))
        )  # fmt: skip
    return out


# ---------------------------------------------------------------------- §5, Table 3
def _table3_series(frame: pd.DataFrame, target: str, measure: str) -> tuple[pd.Series, pd.Series]:
    train = frame[(frame["part"] == "train") & (frame["metric"] == "raab") & (frame["target"] == target)]
    ctrl = frame[
        (frame["part"] == "control") & (frame["metric"] == CONTROL_METRIC) & (frame["target"] == target)
    ]
    return series(train, measure), series(ctrl, measure)


def check_table3(run: ReproductionRun) -> list[Check]:
    """Table 3: Train > Ctrl, R < 0.3, marital and workab the largest Ctrl values (per synthesis)."""
    frame = _sd(run)
    if frame.empty or not (frame["part"] == "control").any():
        return [unavailable("t3-train-above-ctrl-disco", "Table 3: Train > Ctrl", "Table 3", "trend",
                            "no holdout trial", kind="claim")]  # fmt: skip
    note = (f"release made from the 4,000 training records, control = the other {paper.CONTROL_RECORDS}; "
            "Train and Ctrl of one synthesis come from the same trial")  # fmt: skip
    out = []
    for k, measure in ((0, "DiSCO"), (4, "DCAP")):
        gaps, risks, ctrls = {}, {}, {}
        for target in paper.SD_TARGETS:
            train, ctrl = _table3_series(frame, target, measure)
            gaps[target] = (train - ctrl).dropna()
            risks[target] = pd.Series(
                [paper.specific_risk(a, b) for a, b in zip(train, ctrl)], index=train.index
            )
            ctrls[target] = ctrl
        printed = "; ".join(
            f"{t} {paper.TABLE3[t][k + 1]:.2f} > {paper.TABLE3[t][k + 2]:.2f}" for t in paper.SD_TARGETS
        )
        out.append(
            trend(f"t3-train-above-ctrl-{measure.lower()}", f"Table 3 {measure}: Train > Ctrl for every target",
                  printed, "; ".join(f"{t} {fmt(float(g.mean()), 2)}" for t, g in gaps.items()) + " (Train − Ctrl)",
                  all(len(g) and float(g.mean()) > 0 for g in gaps.values()), kind="claim",
                  uncertainty=seed_record(gaps, "Train − Ctrl per target, paired by synthesis"), depends_on=(GATE,),
                  reason=note, evidence=[T3])
        )  # fmt: skip
        r_printed = ", ".join(f"{t} {paper.TABLE3[t][k + 3]:.2f}" for t in paper.SD_TARGETS)
        r_means = {t: float(r.mean()) if len(r) else math.nan for t, r in risks.items()}
        out.append(
            trend(f"t3-r-{measure.lower()}", f"Table 3 {measure}: the specific risk R = (Train − Ctrl)/(1 − Ctrl) is small, in [0, {paper.R_LIMIT}], for every target",
                  f"R {r_printed}", ", ".join(f"{t} {fmt(v, 3)}" for t, v in r_means.items()),
                  all(0 <= v <= paper.R_LIMIT for v in r_means.values()), kind="claim", level="tolerance",
                  expected={"low": 0.0, "high": paper.R_LIMIT}, uncertainty=seed_record(risks, "R per target"),
                  depends_on=(GATE,), evidence=[T3],
                  reason=note + f"; band [0, {paper.R_LIMIT}] (spec §6.2; the paper's largest R is 0.29)")
        )  # fmt: skip
        top = pd.concat([ctrls["marital"], ctrls["workab"]], axis=1).min(axis=1)
        rest = pd.concat([ctrls[t] for t in ("income", "depress", "ls")], axis=1).max(axis=1)
        margin = (top - rest).dropna()
        out.append(
            trend(f"t3-ctrl-largest-{measure.lower()}", f"Table 3 {measure}: marital and workab have the largest Ctrl values",
                  '"The two targets (marital and workab) ... are also those identified here as having the largest Control measures"',
                  ", ".join(f"{t} {fmt(float(c.mean()), 2)}" for t, c in ctrls.items()),
                  bool(len(margin)) and float(margin.mean()) > 0, kind="claim", depends_on=(GATE,), evidence=[T3],
                  uncertainty=seed_record({"min(marital, workab) − max(others)": margin}, "the Ctrl margin"), reason=note)
        )  # fmt: skip
    gaps_r = [
        abs(paper.specific_risk(row[k + 1], row[k + 2]) - row[k + 3])
        for row in paper.TABLE3.values()
        for k in (0, 4)
    ]
    out.append(
        exact("t3-r-formula", "R = (r_train − r_ctrl)/(1 − r_ctrl) reproduces the printed R from the printed Train and Ctrl: max |difference|",
              "R column of Table 3", max(gaps_r), 0.0, kind="arithmetic", tol=0.005, digits=4,
              reason="closed form on the paper's own numbers (Raab Eq. 1, Giomi et al.)", evidence=[T3])
    )  # fmt: skip
    return out


def check_workab_excluded(run: ReproductionRun) -> list[Check]:
    """§5: excluding workab = NO leaves DiSCO 1.1 % and DCAP 1.6 %, far below the Table 3 Ctrl values."""
    frame = _sd(run)
    excluded = {m: series(_whole(frame, "workab", "raab_workab_no"), m) for m in ("DiSCO", "DCAP")}
    ctrl = {m: _table3_series(frame, "workab", m)[1] for m in ("DiSCO", "DCAP")}
    entries = [
        unc.two_sample_difference(ctrl[m], excluded[m], f"{m}: Ctrl − NO excluded") for m in ("DiSCO", "DCAP")
    ]
    record = unc.record(
        "bootstrap interval (95 %) of mean(Ctrl) − mean(NO excluded) over the syntheses (independent releases: "
        "holdout trials vs whole-table trials)", [e for e in entries if e is not None], n=len(excluded["DiSCO"]),
    )  # fmt: skip
    if any(e is None for e in entries):
        record["intervals"] = []
    means = {m: float(v.mean()) if len(v) else math.nan for m, v in excluded.items()}
    cmeans = {m: float(v.mean()) if len(v) else math.nan for m, v in ctrl.items()}
    text_ctrl, table_ctrl = (12.5, 13.3), (paper.TABLE3["workab"][2], paper.TABLE3["workab"][6])
    return [
        trend("s5-workab-no-excluded", "workab with level NO excluded: DiSCO and DCAP far below the Table 3 Ctrl values",
              f"DiSCO {paper.WORKAB_EXCLUDED[0]} %, DCAP {paper.WORKAB_EXCLUDED[1]} %, 'much lower than the Ctrl values'",
              f"DiSCO {fmt(means['DiSCO'], 2)} %, DCAP {fmt(means['DCAP'], 2)} % vs Ctrl {fmt(cmeans['DiSCO'], 2)} / "
              f"{fmt(cmeans['DCAP'], 2)}", all(means[m] < cmeans[m] for m in means), kind="claim", uncertainty=record,
              depends_on=(GATE,), reason="whole-table syntheses with NO excluded vs the holdout trials' Ctrl", evidence=[T3]),
        within("s5-workab-no-levels", f"workab with level NO excluded: DiSCO {paper.WORKAB_EXCLUDED[0]} % ± 30 %",
               f"DiSCO {paper.WORKAB_EXCLUDED[0]} %", None, 0.7 * paper.WORKAB_EXCLUDED[0], 1.3 * paper.WORKAB_EXCLUDED[0],
               kind="claim", samples=excluded["DiSCO"], digits=2, depends_on=(GATE,),
               method=f"{_n(excluded['DiSCO'])} (generator seeds)",
               reason=f"band ±30 % of the printed value (ours: as wide as the spec's Table 1 DiSCO band); DCAP ours "
               f"{fmt(means['DCAP'], 2)} % (paper {paper.WORKAB_EXCLUDED[1]} %)"),
        trend("s5-text-ctrl-values", "§5's 'Ctrl values in Table 3 of 12.5 % and 13.3 %' are Table 3's workab Ctrl values",
              "text 12.5 / 13.3; Table 3 workab Ctrl 31.30 / 33.31", f"differences {table_ctrl[0] - text_ctrl[0]:+.2f} / "
              f"{table_ctrl[1] - text_ctrl[1]:+.2f}", all(abs(a - b) <= 0.05 for a, b in zip(text_ctrl, table_ctrl)),
              kind="arithmetic", level="tolerance",
              reason="the paper's text and its Table 3 disagree (12.53 is ls's DCAP Ctrl; 13.3 appears nowhere); "
              "the claim above is checked against Table 3, whose values make it stronger"),
        not_evaluable("s5-marital-tq-excluded", "The same holds for marital when its identified key-target combinations are excluded",
                      '"The same was true for marital when the identified tq combinations were excluded"',
                      "the excluded tq combinations are not listed in the paper and the two-way check that finds them "
                      "is not implemented (spec P10 has the one-way check only)"),
    ]  # fmt: skip


CHECKS = [check_gt, check_text, check_table1, check_figure_order, check_table3, check_workab_excluded]
