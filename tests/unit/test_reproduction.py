"""The reproduction framework: check builders and verdicts, the experiment block, the document."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pandas as pd
import pytest

from harness.errors import ConfigError, DataError
from harness.reproduction import (
    exact,
    load_plan,
    not_reproducible,
    ordered,
    reproduction_names,
    trend,
    within,
)
from harness.reproduction.checks import Check
from harness.reproduction.document import build_document, committed_runs, newest_runs, read_run
from harness.reproduction.plan import ReproductionPlan, Sweep, profile_names
from harness.reproduction.runner import count_jobs
from harness.reproduction.view import ReproductionRun
from harness.schema import to_results_frame
from harness.storage import atomic_write_json


def test_exact_passes_within_printed_precision_and_reports_the_gap() -> None:
    ok = exact("a", "claim", "3.46", 3.4601, 3.46, tol=0.005, kind="claim")
    assert ok.passed and ok.verdict == "reproduced" and ok.uncertainty["deterministic"]
    off = exact("b", "claim", "3.46", 3.50, 3.46, tol=0.005, kind="claim")
    assert not off.passed and off.verdict == "not reproduced" and "off by +0.04" in off.reason
    missing = exact("c", "claim", "3.46", float("nan"), 3.46, kind="claim")
    assert not missing.passed and "no value" in missing.reason
    assert exact("d", "Table 2 arithmetic", "3.46", 3.46, 3.46, kind="arithmetic").verdict == "passes"
    assert exact("e", "grid size", "225", 224, 225, kind="setup").verdict == "fails"


def test_within_decides_from_the_interval_of_its_samples() -> None:
    inside = within("a", "c", "p", None, 0.4, 0.6, kind="claim", samples=[0.49, 0.5, 0.51, 0.5])
    assert inside.verdict == "reproduced" and inside.observed == "0.500"
    across = within("b", "c", "p", None, 0.4, 0.6, kind="claim", samples=[0.3, 0.55, 0.59, 0.7])
    assert across.passed and across.verdict == "inconclusive"  # the mean is inside, its interval is not
    outside = within("c", "c", "p", None, 0.4, 0.6, kind="claim", samples=[0.8, 0.81, 0.79])
    assert outside.verdict == "not reproduced" and "outside" in outside.reason
    single = within("d", "c", "p", 0.5, 0.4, 0.6, kind="claim")  # one value: no noise estimate
    assert single.passed and single.verdict == "inconclusive" and "single replicate" in single.why
    assert (
        within("e", "c", "p", 5, 5, None, kind="sanity").verdict == "passes"
    )  # one-sided band, bound included


def test_ordered_claim_needs_every_difference_beyond_noise() -> None:
    blocks = pd.Index(["d1", "d2", "d3", "d4", "d5"])
    low = pd.Series([0.10, 0.12, 0.11, 0.13, 0.10], index=blocks)
    high = pd.Series([0.20, 0.22, 0.19, 0.25, 0.21], index=blocks)
    noisy = pd.Series([0.05, 0.30, 0.02, 0.28, 0.12], index=blocks)  # mean above `low`, within its noise
    clear = ordered(
        "o", "low < high", "p", None, ["low", "high"], kind="claim", samples={"low": low, "high": high}
    )
    assert clear.passed and clear.verdict == "reproduced" and clear.uncertainty["n"] == 5
    within_noise = ordered(
        "o", "low < noisy", "p", None, ["low", "noisy"], kind="claim", samples={"low": low, "noisy": noisy}
    )
    assert within_noise.passed and within_noise.verdict == "inconclusive"  # a point ordering is not enough
    opposite = ordered(
        "o", "high < low", "p", None, ["high", "low"], kind="claim", samples={"low": low, "high": high}
    )
    assert not opposite.passed and opposite.verdict == "not reproduced"
    bare = ordered("o", "c", "p", {"a": 0.1, "b": 0.5}, ["a", "b"], kind="claim")  # no samples, no noise
    assert bare.passed and bare.verdict == "inconclusive"


def test_ordered_names_the_broken_pair() -> None:
    good = ordered(
        "o", "SMOTE < SMOTE-DP < DP", "p", {"SMOTE": 0.1, "SMOTE-DP": 0.5, "DP": 0.6},
        ["SMOTE", "SMOTE-DP", "DP"], kind="sanity",
    )  # fmt: skip
    assert good.passed and good.observed == "SMOTE 0.100 < SMOTE-DP 0.500 < DP 0.600"
    bad = ordered("o", "c", "p", {"a": 1.0, "b": 0.5, "c": 2.0}, ["a", "b", "c"], kind="sanity")
    assert not bad.passed and "a vs b" in bad.reason and bad.verdict == "fails"
    ties = {"a": 1.0, "b": 1.0}
    assert not ordered("o", "c", "p", ties, ["a", "b"], kind="sanity").passed
    assert ordered("o", "c", "p", ties, ["a", "b"], strict=False, kind="sanity").passed
    assert "no value for b" in ordered("o", "c", "p", {"a": 1.0}, ["a", "b"], kind="sanity").reason


def test_trend_claim_follows_its_recorded_uncertainty_or_test() -> None:
    from harness.reproduction import uncertainty as unc

    effect = unc.record("bootstrap", [unc.interval("gap", 0.2, 0.05, 0.3)], n=6)
    assert trend("t", "c", "p", "obs", True, kind="claim", uncertainty=effect).verdict == "reproduced"
    # the check function's own "passed" cannot override the rule
    assert trend("t", "c", "p", "obs", False, kind="claim", uncertainty=effect).verdict == "reproduced"
    test = unc.decided_by_test("Bayesian sign test", "undecided", n=6)
    assert trend("t", "c", "p", "obs", True, kind="claim", uncertainty=test).verdict == "inconclusive"
    assert trend("t", "c", "p", "obs", True, kind="claim").verdict == "inconclusive"  # nothing recorded
    deterministic = trend("t", "c", "p", "obs", False, kind="claim", uncertainty=unc.DETERMINISTIC)
    assert deterministic.verdict == "not reproduced"


def test_not_reproducible_and_not_evaluable_roundtrip() -> None:
    from harness.reproduction import not_evaluable

    check = not_reproducible("n", "runtime", "331 s", "M2 laptop, R")
    assert check.verdict == "not evaluable" and check.kind == "claim"
    data = check.to_dict()
    assert (
        data["pass"] is False and data["verdict"] == "not evaluable" and data["verdict_why"] == "M2 laptop, R"
    )
    assert Check.from_dict(json.loads(json.dumps(data))) == check
    holm = not_evaluable("h", "Holm p-values", "3.1e-02", "needs 7 datasets; 6 here")
    assert holm.verdict == "not evaluable" and Check.from_dict(holm.to_dict()) == holm


def test_a_claim_on_a_generator_that_failed_its_gate_is_not_evaluable() -> None:
    from harness.reproduction import uncertainty as unc
    from harness.reproduction.adequacy import Gate, apply_gates

    effect = unc.record("bootstrap", [unc.interval("gap", 0.2, 0.05, 0.3)])
    claim = trend("t", "c", "p", "obs", True, kind="claim", uncertainty=effect, depends_on=("pategan",))
    sanity = trend("s", "c", "p", "obs", True, kind="sanity", depends_on=("pategan",))
    gates = [
        Gate("pategan", "learns", False, "accuracy 0.36 ≤ majority 0.66"),
        Gate("privbayes", "learns", True, ""),
    ]
    judged = {c.id: c for c in apply_gates([claim, sanity], gates)}
    assert (
        judged["t"].verdict == "not evaluable" and "pategan: learns failed (accuracy 0.36" in judged["t"].why
    )
    assert judged["s"].verdict == "passes"  # gates decide claims only
    assert apply_gates([claim], gates[1:])[0].verdict == "reproduced"


def test_check_rejects_unknown_level_kind_and_bad_id() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        Check("x", "c", "p", "o", "roughly", True, kind="claim")
    with pytest.raises(ValueError, match="id must be"):
        Check("two words", "c", "p", "o", "exact", True, kind="claim")
    with pytest.raises(ValueError, match="kind must be one of"):
        Check("x", "c", "p", "o", "exact", True)
    with pytest.raises(ValueError, match="only a claim"):
        Check("x", "c", "p", "o", "not reproducible", False, kind="setup")


def test_to_dict_makes_numpy_and_nan_json_safe() -> None:
    import numpy as np

    check = exact("a", "c", "p", np.float64(math.nan), 1.0, kind="claim")
    data = check.to_dict()
    assert data["value"] is None
    json.dumps(data, allow_nan=False)


# ---------------------------------------------------------------------- plan
def _write_experiment(root: Path, name: str, block: str) -> Path:
    folder = root / "experiment"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text("# @package _global_\nname: " + name + "\n" + block)
    return root


def test_every_bundled_reproduction_has_a_valid_quick_and_paper_profile() -> None:
    names = reproduction_names()
    assert "data_anonymizer_2023" in names
    for name in names:
        for profile in ("quick", "paper"):
            plan = load_plan(name, profile)
            plan.load_checks()
            assert plan.id.startswith("R-") and plan.paper and plan.title


@pytest.mark.parametrize("name", reproduction_names())
def test_every_bundled_profile_composes_its_sweeps(name: str) -> None:
    # The first job of every sweep of every profile (quick, paper, protocol, ...) is composed by Hydra
    # (as `privbench reproduce --dry-run` and the report's "not run here" line do): a key that exists
    # only under another profile fails here.
    profiles = profile_names(name)
    assert {"quick", "paper"} <= set(profiles)
    for profile in profiles:
        plan = load_plan(name, profile)
        counts = count_jobs(plan)
        assert list(counts) == [s.name for s in plan.sweeps]
        assert all(n >= 1 for n in counts.values()), (profile, counts)


def test_plan_profile_sweeps_replace_the_default_ones(tmp_path: Path) -> None:
    root = _write_experiment(
        tmp_path, "mine",
        "reproduction:\n  id: R-X\n  paper: p.txt\n  title: t\n  checks: experiments.reproductions.data_anonymizer_2023\n"
        "  sweeps: {main: []}\n  profiles:\n    quick: {overrides: [data.max_rows=500]}\n"
        "    paper: {sweeps: {a: ['generator=identity'], b: ['generator=uniform', 'gen_seed=0,1']}}\n",
    )  # fmt: skip
    quick = load_plan("mine", "quick", extra_dirs=(root,))
    assert quick.sweeps == (Sweep("main", ()),)
    assert quick.sweep_overrides(quick.sweeps[0], ["x=1"]) == [
        "experiment=mine", "profile=quick", "runtime.calibrate=false", "data.max_rows=500", "x=1",
    ]  # fmt: skip
    assert quick.sweep_overrides(quick.sweeps[0], ["runtime.calibrate=true"])[-1] == "runtime.calibrate=true"
    assert "runtime.calibrate=false" not in quick.sweep_overrides(quick.sweeps[0], ["runtime.calibrate=true"])
    paper = load_plan("mine", "paper", extra_dirs=(root,))
    assert [s.name for s in paper.sweeps] == ["a", "b"]
    assert paper.sweeps[1].overrides == ("generator=uniform", "gen_seed=0,1")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("", "has no reproduction block"),
        ("reproduction:\n  id: R-X\n  paper: p\n  title: t\n  checks: m\n  profiles: {quick: {}}\n  extra: 1\n",
         "unknown key(s) extra"),
        ("reproduction:\n  id: R-X\n  paper: p\n  title: t\n  profiles: {quick: {}}\n", "reproduction.checks must be"),
        ("reproduction:\n  id: R-X\n  paper: p\n  title: t\n  checks: m\n  profiles: {paper: {}}\n",
         "unknown reproduction profile 'quick'; expected one of: paper"),
        ("reproduction:\n  id: R-X\n  paper: p\n  title: t\n  checks: m\n  profiles: {quick: {overrides: [nokey]}}\n",
         "'nokey' is not a Hydra override"),
        ("reproduction:\n  id: R-X\n  paper: p\n  title: t\n  checks: m\n  profiles: {quick: {sweeps: [a]}}\n",
         "must map sweep names"),
        ("reproduction:\n  id: R-X\n  paper: p\n  title: t\n  checks: m\n  profiles: {quick: {speed: 1}}\n",
         "unknown key(s) speed"),
    ],
)  # fmt: skip
def test_bad_reproduction_blocks_fail_with_one_line(tmp_path: Path, block: str, message: str) -> None:
    root = _write_experiment(tmp_path, "bad", block)
    with pytest.raises(ConfigError) as info:
        load_plan("bad", "quick", extra_dirs=(root,))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_missing_checks_module_is_a_config_error(tmp_path: Path) -> None:
    root = _write_experiment(
        tmp_path, "nomod",
        "reproduction:\n  id: R-X\n  paper: p\n  title: t\n  checks: experiments.reproductions.absent\n  profiles: {quick: {}}\n",
    )  # fmt: skip
    plan = load_plan("nomod", "quick", extra_dirs=(root,))
    with pytest.raises(ConfigError, match="cannot be imported"):
        plan.load_checks()


# ---------------------------------------------------------------------- view
def _plan(profile: str = "quick") -> ReproductionPlan:
    return ReproductionPlan("exp", "R-X", "p.txt", "Title", "Table 1", "m", profile, "", (), ())


def _rows() -> pd.DataFrame:
    base = {"run_id": "r", "experiment": "exp", "status": "ok", "family": "privacy", "variant": ""}
    return to_results_frame(
        [
            {**base, "generator": "g", "generator_params": '{"epsilon":0.1}', "metric": "m", "value": 1.0, "trial_key": "a"},
            {**base, "generator": "g", "generator_params": '{"epsilon":1.0}', "metric": "m", "value": 3.0, "trial_key": "b"},
            {**base, "generator": "g", "generator_params": '{"epsilon":1.0}', "metric": "m", "value": 5.0, "trial_key": "c"},
            {**base, "generator": "h", "generator_params": "{}", "metric": "m", "value": 7.0, "trial_key": "d",
             "status": "error"},
        ]
    )  # fmt: skip


def test_view_selects_by_generator_params_and_status(tmp_path: Path) -> None:
    run = ReproductionRun(_plan(), tmp_path, _rows())
    assert run.mean("m", generator="g", params={"epsilon": 1}) == 4.0
    assert run.values("m", generator="g", params={"epsilon": 0.1}).tolist() == [1.0]
    assert math.isnan(run.mean("m", generator="h"))  # its row is not ok
    assert len(run.rows("m", generator="h", status=None)) == 1
    assert run.rows("m", generator=["g"])["param.epsilon"].tolist() == [0.1, 1.0, 1.0]
    assert math.isnan(run.mean("m", generator="g", params={"absent": 1}))


def test_view_writes_markdown_and_csv_tables(tmp_path: Path) -> None:
    run = ReproductionRun(_plan(), tmp_path, _rows())
    path = run.write_table("t1", pd.DataFrame({"name": ["a"], "x": [0.12345]}), caption="Table 1", digits=2)
    assert path == "tables/t1.md"
    text = (tmp_path / "reproduction" / "tables" / "t1.md").read_text()
    assert text.startswith("Table 1") and "| a | 0.12 |" in text
    assert (tmp_path / "reproduction" / "tables" / "t1.csv").read_text().splitlines()[1] == "a,0.12345"


# ---------------------------------------------------------------------- document
def _fake_run(root: Path, experiment: str, stamp: str, profile: str, checks: list[Check]) -> Path:
    run_dir = root / experiment / stamp
    (run_dir / "reproduction" / "tables").mkdir(parents=True)
    (run_dir / "reproduction" / "tables" / "t.md").write_text("| a |\n")
    atomic_write_json(
        run_dir / "reproduction" / "checks.json",
        {
            "experiment": experiment, "id": "R-BLOG", "paper": "003.txt", "title": "Title", "section": "Fig. 5",
            "profile": profile, "profile_description": "small", "artifacts": ["tables/t.md"],
            "cost": {"trials": 2, "statuses": {"ok": 10}, "wall_seconds": 30.0, "machine": {"cpu": "X", "cores": 2}},
            "checks": [c.to_dict() for c in checks],
        },
    )  # fmt: skip
    return run_dir


def test_document_lists_checks_verdicts_and_copies_outputs(tmp_path: Path) -> None:
    checks = [
        exact("k", "k formula", "45", 45, 45, kind="arithmetic"),
        within(
            "w", "share", "0.5", None, 0.4, 0.6, reason="quick data", kind="claim", samples=[0.9, 0.91, 0.89]
        ),
        not_reproducible("n", "runtime", "331 s", "M2 laptop"),
    ]
    _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-01_00-00-00", "quick", checks[:1])
    newer = _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-02_00-00-00", "quick", checks)
    runs = newest_runs(tmp_path / "results", ["data_anonymizer_2023"])
    assert [r.run_dir for r in runs] == [newer]
    path = build_document(runs, tmp_path / "out")
    text = path.read_text()
    assert (
        "| R-BLOG | [`data_anonymizer_2023`]" in text
        and "| quick | 2 | 0 | 1 | 0 | 1 | 0 | – | 1/1 | – |" in text
    )
    assert "| k formula | arithmetic | 45 | 45 | passes |" in text
    share = next(line for line in text.splitlines() if line.startswith("| share |"))
    assert (
        "| 0.900 |" in share
        and "**not reproduced**" in share
        and "quick data; outside [0.400, 0.600]" in share
    )
    assert "mean: 0.900 [0.890, 0.910]" in share  # its uncertainty
    assert "quick-profile numbers, not the published protocol" in text
    assert "### Referee's summary (profile `quick`" in text
    assert "Paper profile: 4 trials; not run here." in text  # the bundled experiment's paper sweep
    assert (tmp_path / "out" / "data_anonymizer_2023" / "quick" / "tables" / "t.md").is_file()
    copied = json.loads((tmp_path / "out" / "data_anonymizer_2023" / "quick" / "checks.json").read_text())
    assert len(copied["checks"]) == 3


def test_committed_runs_are_kept_where_no_newer_run_exists(tmp_path: Path) -> None:
    checks = [exact("k", "k formula", "45", 45, 45, kind="arithmetic")]
    paper = _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-01_00-00-00", "paper", checks)
    out = tmp_path / "out"
    build_document(newest_runs(tmp_path / "results", ["data_anonymizer_2023"]), out)
    shutil.rmtree(paper)  # the paper run's directory is gone (another session, a cluster)
    quick = _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-02_00-00-00", "quick", checks)
    runs = newest_runs(tmp_path / "results", ["data_anonymizer_2023"])
    kept = committed_runs(out, ["data_anonymizer_2023"], runs)
    assert [r.profile for r in runs] == ["quick"] and [r.profile for r in kept] == ["paper"]
    text = build_document([*runs, *kept], out).read_text()
    assert "### Profile `paper`" in text and "kept from the committed report" in text
    assert (out / "data_anonymizer_2023" / "paper" / "tables" / "t.md").is_file()
    assert (out / "data_anonymizer_2023" / "quick" / "checks.json").is_file() and quick.is_dir()
    # a newer local run of the same profile replaces the committed one
    _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-03_00-00-00", "paper", checks)
    runs = newest_runs(tmp_path / "results", ["data_anonymizer_2023"])
    assert committed_runs(out, ["data_anonymizer_2023"], runs) == []


def test_document_without_runs_and_unreadable_checks_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no reproduction runs found"):
        build_document([], tmp_path)
    with pytest.raises(DataError, match="no reproduction/checks.json"):
        read_run(tmp_path)
    (tmp_path / "reproduction").mkdir()
    (tmp_path / "reproduction" / "checks.json").write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        read_run(tmp_path)


def test_cost_summary_counts_each_metric_once_per_trial() -> None:
    from harness.reproduction.runner import cost_summary

    rows = []
    for trial in ("a", "b"):
        for output in ("x", "y", "z"):  # one metric with three outputs: its time is on every output row
            rows.append({"run_id": "r", "trial_key": trial, "metric": "m", "variant": output, "status": "ok",
                         "metric_s": 2.0, "fit_s": 1.0, "sample_s": 0.5, "value": 1.0})  # fmt: skip
        rows.append({"run_id": "r", "trial_key": trial, "metric": "fit_seconds", "variant": "", "status": "ok",
                     "fit_s": 1.0, "sample_s": 0.5, "value": 1.0})  # fmt: skip
    cost = cost_summary(to_results_frame(rows), {"wall_seconds": 9.0})
    assert (cost["trials"], cost["fit_seconds"], cost["sample_seconds"]) == (2, 2.0, 1.0)
    assert cost["metric_seconds"] == 4.0 and cost["wall_seconds"] == 9.0
    assert cost["statuses"] == {"ok": 8}


def test_a_sweeps_override_replaces_the_profiles_for_the_same_key() -> None:
    from harness.reproduction.plan import last_wins

    assert last_wins(["a=1", "++m.x=10", "b=2", "m.x=0", "+a=3", "-v"]) == ["b=2", "++m.x=0", "+a=3", "-v"]
    assert last_wins(["a=1", "b=2"]) == ["a=1", "b=2"]


def test_a_quick_run_beside_a_fuller_one_is_a_superseded_smoke_test(tmp_path: Path) -> None:
    checks = [exact("k", "k formula", "45", 45, 45, kind="arithmetic")]
    _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-01_00-00-00", "paper", checks)
    _fake_run(tmp_path / "results", "data_anonymizer_2023", "2026-01-02_00-00-00", "quick", checks)
    text = build_document(
        newest_runs(tmp_path / "results", ["data_anonymizer_2023"]), tmp_path / "out"
    ).read_text()
    assert "### Referee's summary (profile `paper`" in text
    assert "### Profile `quick` — smoke test, superseded by the `paper` run" in text
    assert "| quick (smoke test, superseded) |" in text and "Its verdicts are not findings" in text
