"""A trial imports no heavy module it does not use (issue 15): no torch for a KS statistic,
no numba unless a generator or metric brings it. Each check runs in a fresh interpreter."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO

HEAVY = ("torch", "numba", "jax", "matplotlib", "umap", "xgboost", "statsmodels", "sdv", "anonymeter")


def _python(script: str, tmp_path: Path, **env: str) -> dict[str, object]:
    environ = {
        **os.environ,
        "PRIVBENCH_RESULTS_DIR": str(tmp_path / "results"),
        "PRIVBENCH_CACHE_DIR": str(tmp_path / "cache"),
        "PRIVBENCH_PROGRESS": "0",
        "PYTHONPATH": str(REPO),
        **env,
    }
    environ.pop("NUMBA_NUM_THREADS", None)
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        cwd=tmp_path,
        env=environ,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


RUN = f"""
    import json, sys
    from harness.cli import main
    code = main(["run", "generator=identity", "suite=fast", "data.max_rows=300"])
    print(json.dumps({{"code": code, "loaded": [m for m in {HEAVY!r} if m in sys.modules],
                      "sdmetrics": "sdmetrics" in sys.modules}}))
"""


def test_fast_suite_trial_imports_neither_torch_nor_numba(tmp_path: Path) -> None:
    out = _python(RUN, tmp_path)
    assert out["code"] == 0
    assert out["sdmetrics"]  # ks_complement and tv_complement ran through SDMetrics
    assert out["loaded"] == []
    rows = list((tmp_path / "results").rglob("rows.parquet"))
    assert len(rows) == 1


BUILD = """
    import json, os, sys
    from harness.instantiate import build_metric

    build_metric("ks_complement")
    built = {"sdmetrics": "sdmetrics" in sys.modules, "torch": "torch" in sys.modules}
    import sdmetrics.single_table.bayesian_network as bn
    stand_in = repr(bn.torch)
    if os.environ.get("TOUCH_TORCH"):
        bn.torch.tensor  # first use imports torch
    print(json.dumps({**built, "stand_in": stand_in, "torch_after": "torch" in sys.modules}))
"""


def test_building_an_sdmetrics_metric_imports_sdmetrics_without_torch(tmp_path: Path) -> None:
    out = _python(BUILD, tmp_path)
    assert out["sdmetrics"] is True  # imported when built: never billed to metric_s
    assert out["torch"] is False and out["torch_after"] is False


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_sdmetrics_imports_torch_on_first_use(tmp_path: Path) -> None:
    out = _python(BUILD, tmp_path, TOUCH_TORCH="1")
    assert out["stand_in"] == "<lazy module 'torch'>"
    assert out["torch_after"] is True


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_switch_restores_the_eager_import(tmp_path: Path) -> None:
    script = """
        import json, sys
        from harness.instantiate import build_metric
        from harness.threads import limit_threads

        build_metric("ks_complement")
        built = "sdmetrics" in sys.modules
        from metrics.fidelity.sdmetrics_lazy import sdmetrics_module
        sdmetrics_module("single_column")
        with limit_threads(1):
            pass
        print(json.dumps({"built": built, "torch": "torch" in sys.modules, "numba": "numba" in sys.modules}))
    """
    out = _python(script, tmp_path, PRIVBENCH_LAZY_IMPORTS="0")
    assert out == {"built": False, "torch": True, "numba": True}


NUMBA = """
    import json, os, sys
    from harness.threads import limit_threads

    with limit_threads(1):
        inside = os.environ.get("NUMBA_NUM_THREADS")
        loaded = "numba" in sys.modules
        import numba  # a library importing numba inside the block gets the trial's budget
        threads = numba.get_num_threads()
    after = os.environ.get("NUMBA_NUM_THREADS")
    with limit_threads(2):  # loaded now: limited as before, within its ceiling
        again = numba.get_num_threads()
    print(json.dumps({"inside": inside, "loaded": loaded, "threads": threads, "after": after,
                      "again": again, "restored": numba.get_num_threads()}))
"""


def test_limit_threads_does_not_import_numba(tmp_path: Path) -> None:
    out = _python(NUMBA, tmp_path)
    # numba was imported inside the block, so its pool has that size and NUMBA_NUM_THREADS stays
    # set to it: a later ``numba.config.reload_config()`` must not try to resize a launched pool
    assert out == {"inside": "1", "loaded": False, "threads": 1, "after": "1", "again": 1, "restored": 1}


# ---------------------------------------------------------------------- benchmark smoke test
def test_overhead_benchmark_runs_at_tiny_size(capsys: pytest.CaptureFixture[str]) -> None:
    from benchmarks.bench_trial_overhead import main

    main(["--workloads", "single", "--configs", "before", "after", "--no-warmup", "--extra", "profile=quick",
          "data.max_rows=200"])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    before = next(line for line in lines if line.strip().startswith("before"))
    after = next(line for line in lines if line.strip().startswith("after"))
    assert "numba" in before
    if importlib.util.find_spec("torch") is not None:
        assert "torch" in before  # SDMetrics as shipped
    assert "torch" not in after and "numba" not in after and "sdmetrics" in after


def test_pre_imported_simulation_times_the_command_without_its_imports(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks.bench_trial_overhead import main

    main(["--workloads", "single", "--configs", "table cache", "pre-imported", "--no-warmup", "--extra",
          "profile=quick", "data.max_rows=200"])  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    cold, warm = (
        next(line for line in lines if line.strip().startswith(c)) for c in ("table cache", "pre-imported")
    )
    assert "anonymeter" in warm and "anonymeter" not in cold  # imported before the clock
    for config, line in (("table cache", cold), ("pre-imported", warm)):
        assert (
            float(line.strip()[len(config) :].split()[0]) > 0
        )  # a wall time (compared in the benchmark, not here)


PARTIAL = """
    import json, sys
    from harness.instantiate import build_metric

    build_metric("ks_complement")
    built = {"reports": "sdmetrics.reports" in sys.modules, "plotly": "plotly" in sys.modules}
    import sdmetrics
    version = sdmetrics.__version__  # first use of the package: its __init__ runs
    from sdmetrics.single_column import KSComplement
    print(json.dumps({**built, "version": version, "same": sdmetrics.single_column.KSComplement is KSComplement,
                      "reports_after": "sdmetrics.reports" in sys.modules, "torch": "torch" in sys.modules}))
"""


def test_building_a_column_metric_imports_only_its_sdmetrics_subpackages(tmp_path: Path) -> None:
    out = _python(PARTIAL, tmp_path)
    assert out["reports"] is False and out["plotly"] is False  # issue 18: no reports, no plotly
    assert out["version"] and out["same"] is True and out["reports_after"] is True
    assert out["torch"] is False


def test_partial_switch_imports_the_whole_package(tmp_path: Path) -> None:
    out = _python(PARTIAL, tmp_path, PRIVBENCH_SDMETRICS_PARTIAL="0")
    assert out["reports"] is True and out["torch"] is False
