"""The configuration of ``hydra/launcher=slurm``: submitit's SLURM settings plus privbench's own.

``experiments/hydra/launcher/slurm.yaml`` builds on the node registered here
(``privbench_slurm``), which is submitit's ``SlurmQueueConf`` with two more settings read by
:mod:`harness.slurm_launcher` (and never passed to submitit):

* ``trials_per_job`` (default 1): trials run one after another in one SLURM job, so a job's
  start-up (scheduling, the Python interpreter, the harness's imports) is paid once per job;
  the job's time limit is ``timeout_min`` times the number of its trials;
* ``mem_headroom`` (default 1.5): when ``mem_gb`` is null, the memory asked of SLURM is the
  largest peak RSS measured in earlier runs of the same experiment times this factor, plus the
  job's own process (:mod:`harness.slurm_resources`).

The node must be registered in every process that composes a config with
``hydra/launcher=slurm``: the command's (preflight, Hydra) and each SLURM job's, where submitit's
launcher composes the job's config again (importing :mod:`harness.slurm_launcher` registers it).
"""

from __future__ import annotations

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore

from harness.errors import ConfigError

try:
    from hydra_plugins.hydra_submitit_launcher.config import SlurmQueueConf
except ImportError:  # the core install, without the optional extra privbench[cluster]
    AVAILABLE = False
else:
    AVAILABLE = True

#: The name of the registered node in the ``hydra/launcher`` group.
NODE_NAME = "privbench_slurm"

#: Settings of the node that are privbench's, removed before the rest goes to submitit.
OWN_KEYS = ("trials_per_job", "mem_headroom")

#: Launchers of ``experiments/hydra/launcher`` and Hydra's submitit plugin that need the extra.
SUBMITIT_LAUNCHERS = ("slurm", "submitit_local", "submitit_slurm")


def require_for(overrides: list[str]) -> None:
    """Raise a one-line :class:`ConfigError` when the overrides choose a submitit launcher that is not installed."""
    for override in overrides:
        key, _, value = override.partition("=")
        if key.lstrip("+~") == "hydra/launcher" and value in SUBMITIT_LAUNCHERS and not AVAILABLE:
            raise ConfigError(
                f"hydra/launcher={value} needs the optional extra privbench[cluster] (submitit, "
                "hydra-submitit-launcher not installed): pip install 'privbench[cluster]'"
            )


if AVAILABLE:

    @dataclass
    class PrivbenchSlurmConf(SlurmQueueConf):
        """submitit's ``SlurmQueueConf`` with privbench's packing and memory sizing settings."""

        trials_per_job: int = 1
        mem_headroom: float = 1.5


def register() -> None:
    """Register ``PrivbenchSlurmConf`` as ``hydra/launcher/privbench_slurm`` (idempotent; nothing
    without the extra)."""
    if AVAILABLE:
        ConfigStore.instance().store(
            group="hydra/launcher", name=NODE_NAME, node=PrivbenchSlurmConf(), provider="privbench"
        )


register()
