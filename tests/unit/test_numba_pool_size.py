"""numba imported inside a thread budget keeps the pool size it was launched with (issue 28).

``limit_threads`` sets ``NUMBA_NUM_THREADS`` while numba is not loaded, so a library that
imports numba inside the block starts with the trial's budget. numba re-reads the variable at
every compilation (``reload_config``) and raises "Cannot set NUMBA_NUM_THREADS to a different
value once the threads have been launched" when it changed. Removing it after the block made
every compilation that followed fail: with a cold on-disk cache (a fresh machine) that was every
Anonymeter attack after the first metric had imported numba. The scripts run in fresh
interpreters with an empty numba cache, as on a fresh machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import os
    from harness.threads import limit_threads

    with limit_threads(1):           # a metric's warm-up imports numba inside its budget
        import numba
        numba.set_num_threads(1)     # launches the pool (size 1)

    @numba.njit                      # compiled outside the block: reload_config runs
    def twice(x):
        return 2 * x

    with limit_threads(1):           # the next metric's block
        @numba.njit
        def thrice(x):
            return 3 * x
        value = twice(2) + thrice(2)
    print(value, os.environ.get("NUMBA_NUM_THREADS"), numba.config.NUMBA_NUM_THREADS)
    """
)


def _run(script: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONPATH": str(REPO)}
    env.pop("NUMBA_NUM_THREADS", None)
    return subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )


def test_compiling_after_the_budget_that_imported_numba(tmp_path: Path) -> None:
    proc = _run(SCRIPT, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    value, variable, pool = proc.stdout.split()
    assert value == "10"
    assert variable == "1" and pool == "1"  # the budget's pool size, kept for the process


def test_variable_removed_when_numba_was_not_imported(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import os, sys
        from harness.threads import limit_threads
        with limit_threads(1):
            inside = os.environ.get("NUMBA_NUM_THREADS")
        print(inside, os.environ.get("NUMBA_NUM_THREADS"), "numba" in sys.modules)
        """
    )
    proc = _run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["1", "None", "False"]


def test_a_replaced_environment_gets_the_pool_size_back(tmp_path: Path) -> None:
    # The warm worker warms the suite (numba imported inside a budget), then each served command
    # takes its client's environment, which does not hold the variable.
    script = textwrap.dedent(
        """
        import os
        from harness.threads import limit_threads, pin_numba_pool

        with limit_threads(1):
            import numba
            numba.set_num_threads(1)
        client = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
        os.environ.clear()
        os.environ.update(client)
        pin_numba_pool()

        @numba.njit
        def twice(x):
            return 2 * x

        print(twice(3), os.environ["NUMBA_NUM_THREADS"])
        """
    )
    proc = _run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["6", "1"]
