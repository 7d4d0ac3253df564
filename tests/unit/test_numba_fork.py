"""A trial forked after the sweep process computed metrics can still run numba parallel code.

``limit_threads`` (used around every metric in the sweep process) starts numba's threading
layer there. With numba's Linux default, GNU OpenMP, every later forked trial that enters a
numba parallel region is killed ("fork() called from a process already using GNU OpenMP");
UMAP-SMOTENC trials died that way in multiruns. The CLI selects a fork-safe layer.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import multiprocessing as mp
    import os

    from harness.cli import setup_environment

    setup_environment()
    import numba
    import numpy as np

    from harness.threads import limit_threads

    @numba.njit(parallel=True)
    def total(x):
        s = 0.0
        for i in numba.prange(x.shape[0]):
            s += x[i]
        return s

    with limit_threads(1):  # what the sweep process does around a metric
        total(np.ones(10))
    child = mp.get_context("fork").Process(target=total, args=(np.ones(10),))
    child.start()
    child.join(60)
    print(numba.threading_layer(), child.exitcode)
    """
)


def test_forked_trial_runs_numba_parallel_code() -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    layer, exitcode = proc.stdout.split()
    assert layer != "omp"
    assert exitcode == "0", proc.stderr
