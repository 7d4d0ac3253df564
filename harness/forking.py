"""How many forked children a parallel step of the harness may start (report figures, collect).

One rule for every such step: none where ``fork`` is not available or in a daemonic process
(which may not have children); the step's environment variable if it is set; else the usable
cores (CPU affinity), at most the step's limit, and none on a single core.
"""

from __future__ import annotations

import multiprocessing
import os


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def fork_children(env: str, limit: int) -> int:
    """Forked children allowed for a step switched by ``$env`` (0: work in this process).

    Parameters
    ----------
    env : str
        The step's environment variable; a set value (an integer) wins over the core count.
    limit : int
        Most children when the count comes from the cores.
    """
    if "fork" not in multiprocessing.get_all_start_methods() or multiprocessing.current_process().daemon:
        return 0
    configured = os.environ.get(env, "").strip()
    if configured:
        return max(0, int(configured))
    cores = usable_cores()
    return 0 if cores < 2 else min(cores, limit)
