"""Hand the preflight's prepared trials to the jobs that run them in the same process.

``privbench run`` first builds every job of a command (:func:`harness.preflight.preflight_jobs`:
data loaded and split, generator and metrics constructed, trial key computed) so that a bad
input fails before anything is written. With Hydra's basic launcher the jobs then run in that
same process and each built its trial again (:func:`harness.trial.prepare_trial`, about 0.15 s
and up to a second for a metric's first construction). The preflight now keeps what it built
for small commands (at most :data:`MEMO_SIZE` jobs) and the job takes it instead of building it
again (:func:`prepare_or_reuse`).

A prepared trial is reused only for a configuration equal in every field but the run
directory's name (``run_id``, which the job sets); anything else builds afresh. Each entry is
taken once (the job owns its generator and metric objects). Jobs in other processes (a joblib
or SLURM launcher) never find an entry and build their trial as before; the memo holds the
preflight's entries until the command ends. ``PRIVBENCH_REUSE_PREPARED=0`` turns it off.
"""

from __future__ import annotations

import dataclasses
import os
from collections import OrderedDict
from typing import TYPE_CHECKING

from harness.spec import canonical_json

if TYPE_CHECKING:
    from harness.trial import PreparedTrial, TrialConfig

MEMO_SIZE = 16
"""Most prepared trials kept (a command with more jobs keeps none: memory)."""
REUSE_ENV = "PRIVBENCH_REUSE_PREPARED"

_MEMO: OrderedDict[str, PreparedTrial] = OrderedDict()


def enabled() -> bool:
    """False when ``$PRIVBENCH_REUSE_PREPARED`` is ``0``."""
    return os.environ.get(REUSE_ENV, "1") != "0"


def identity(cfg: TrialConfig) -> str:
    """The configuration without its ``run_id``, as canonical JSON (paths as text)."""
    fields = {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg) if f.name != "run_id"}
    fields["split"] = dataclasses.asdict(cfg.split)
    return canonical_json(fields)


def remember(prepared: PreparedTrial) -> None:
    """Keep ``prepared`` for a job of this process (the oldest entry goes beyond :data:`MEMO_SIZE`)."""
    if not enabled():
        return
    _MEMO[identity(prepared.cfg)] = prepared
    while len(_MEMO) > MEMO_SIZE:
        _MEMO.popitem(last=False)


def take(cfg: TrialConfig) -> PreparedTrial | None:
    """The remembered trial of ``cfg`` (removed from the memo) with ``cfg``'s ``run_id``, or None."""
    if not _MEMO:
        return None
    prepared = _MEMO.pop(identity(cfg), None)
    return None if prepared is None else dataclasses.replace(prepared, cfg=cfg)


def clear() -> None:
    """Forget every remembered trial (a new command's preflight starts empty)."""
    _MEMO.clear()


def prepare_or_reuse(cfg: TrialConfig) -> PreparedTrial:
    """The preflight's prepared trial of ``cfg`` if this process has it, else a new one."""
    from harness.trial import prepare_trial

    reused = take(cfg)
    return reused if reused is not None else prepare_trial(cfg)
