"""The thread budget's cached threadpoolctl controller (:mod:`harness.threads`).

The controller is reused while the set of loaded shared objects is unchanged and rescanned when
a library is loaded later, so every BLAS/OpenMP pool loaded at the time of a block is limited.
Each check runs in a fresh interpreter: which libraries are loaded is process state.
"""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_lazy_imports import _python

SCRIPT = """
    import json
    import numpy  # OpenBLAS only
    from threadpoolctl import threadpool_info
    from harness.threads import _controller, limit_threads

    def pools():
        return sorted((info["internal_api"], info["num_threads"]) for info in threadpool_info())

    first = _controller()
    same = _controller() is first
    with limit_threads(1):
        numpy_only = pools()
    import sklearn.ensemble  # loads OpenMP (libgomp) and scipy's OpenBLAS after the first scan
    rescanned = _controller() is not first
    before = pools()
    with limit_threads(1):
        inside = pools()
    print(json.dumps({
        "same": same,
        "numpy_only": numpy_only,
        "rescanned": rescanned,
        "inside": inside,
        "before": before,
        "after": pools(),
        "apis": sorted({lib.internal_api for lib in _controller().lib_controllers}),
    }))
"""


def test_controller_is_reused_and_rescanned_when_a_library_loads(tmp_path: Path) -> None:
    out = _python(SCRIPT, tmp_path)
    assert out["same"] is True
    assert out["numpy_only"] and all(threads == 1 for _, threads in out["numpy_only"])
    assert out["rescanned"] is True
    assert "openmp" in out["apis"]  # the library loaded after the first scan is controlled
    assert len(out["inside"]) > len(out["numpy_only"])
    assert all(threads == 1 for _, threads in out["inside"])
    assert out["after"] == out["before"]  # restored on exit


FORK = """
    import json
    import numpy
    from harness.isolation import run_isolated
    from harness.storage import warm_parquet_writer
    from harness.threads import _controller, warm_thread_budget

    warm_thread_budget()
    warm_parquet_writer()
    warm_parquet_writer()  # once per process
    parent = id(_controller())
    child = run_isolated(lambda: id(_controller()), timeout_s=60, max_memory_mb=None).value
    print(json.dumps({"inherited": child == parent, "writes": warm_parquet_writer.cache_info().misses}))
"""


def test_forked_children_inherit_the_warmed_controller(tmp_path: Path) -> None:
    assert _python(FORK, tmp_path) == {"inherited": True, "writes": 1}
