"""The ``reproduction`` block of an experiment config: what a paper reproduction runs.

An experiment YAML that reproduces a paper carries, next to its Hydra keys::

    reproduction:
      id: R-BLOG                                  # spec/reproductions.md id
      paper: 003_b43cc971fbef2bef.txt             # seed file in ../shared/papers
      title: Data Anonymizer re-identification score
      section: '"Evaluation Criteria", Figs 3-5'  # where the numbers are printed
      checks: experiments.reproductions.data_anonymizer_2023   # module with CHECKS (and artifacts)
      sweeps:                                     # name -> Hydra multirun overrides
        main: []                                  # [] = the experiment's own hydra.sweeper.params
      profiles:
        quick: {overrides: [data.max_rows=4000]}  # minutes on a laptop; CI runs it
        paper: {overrides: [], sweeps: {...}}     # the published protocol; sweeps replace the defaults
        protocol: {persist: true, ...}            # persist: the run is committed and resumed (runner.py)

A profile named like a ``profile/`` config (``quick``, ``paper``) also selects that config.
Each sweep is one ``privbench run -m experiment=<name> profile=<profile> <overrides>
<sweep overrides>``; sweeps let one experiment hold grids that differ per generator (a
cartesian ``hydra.sweeper.params`` cannot). A reproduction with no trials (closed-form checks)
declares ``sweeps: {}``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from harness.errors import ConfigError
from harness.registry import config_path, names, read_config

PROFILE_KEYS = ("overrides", "sweeps", "description", "persist")
BLOCK_KEYS = ("id", "paper", "title", "section", "checks", "sweeps", "profiles")


@dataclass(frozen=True)
class Sweep:
    """One Hydra multirun of a reproduction: a name (its sub-directory) and its overrides."""

    name: str
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class ReproductionPlan:
    """A reproduction experiment resolved for one profile.

    Attributes
    ----------
    experiment : str
        The experiment config name (``experiments/experiment/<experiment>.yaml``).
    id, paper, title, section : str
        ``spec/reproductions.md`` id, seed paper file, short title, where the numbers are printed.
    checks_module : str
        Dotted module with ``CHECKS`` (and optionally ``artifacts``).
    profile : str
        ``quick``, ``paper`` or another profile the block defines.
    description : str
        What the profile shrinks or runs (shown in ``REPRODUCTION.md``).
    overrides : tuple of str
        Overrides of every sweep (after ``experiment=`` and ``profile=``).
    sweeps : tuple of Sweep
        The multiruns, in order.
    persist : bool
        The run lives in ``results/reproductions/runs/<experiment>/<profile>`` (committed with the
        repository, job directories and all) and the same command resumes it: a run longer than
        one sitting is committed as it stands and finished later (``runner.persistent_run_dir``).
    """

    experiment: str
    id: str
    paper: str
    title: str
    section: str
    checks_module: str
    profile: str
    description: str
    overrides: tuple[str, ...]
    sweeps: tuple[Sweep, ...]
    persist: bool = False

    def sweep_overrides(self, sweep: Sweep, extra: Sequence[str] = ()) -> list[str]:
        """Full override list of ``sweep``: experiment, profile, profile overrides, sweep, extra.

        A reproduction runs without the privacy calibration (``runtime.calibrate=false``): no
        paper's protocol includes it and its checks do not read it; a profile, sweep or extra
        override that sets ``runtime.calibrate`` wins.
        """
        base = [f"experiment={self.experiment}"]
        if self.profile in names("profile"):
            base.append(f"profile={self.profile}")
        rest = last_wins([*self.overrides, *sweep.overrides, *extra])
        if not any(o.lstrip("+~").startswith("runtime.calibrate=") for o in rest):
            base.append("runtime.calibrate=false")
        return [*base, *rest]

    def load_checks(self) -> ModuleType:
        """Import the checks module; raise :class:`ConfigError` if it is missing or has no ``CHECKS``."""
        try:
            module = importlib.import_module(self.checks_module)
        except ImportError as exc:
            raise ConfigError(
                f"experiment {self.experiment}: reproduction.checks module {self.checks_module!r} "
                f"cannot be imported ({exc})"
            ) from None
        if not isinstance(getattr(module, "CHECKS", None), (list, tuple)):
            raise ConfigError(f"{self.checks_module}: expected a module-level CHECKS list of check functions")
        return module


def last_wins(overrides: Sequence[str]) -> list[str]:
    """``overrides`` with one entry per key: a sweep's (or an extra) setting replaces the profile's.

    The entry kept is the last one for its key (``+``/``++`` prefixes ignored when comparing),
    at the position of that last entry; the command line of ``privbench run`` rejects a key
    given twice, so the profile's value must not reach it.
    """
    keys = [o.split("=", 1)[0].lstrip("+~") if "=" in o else None for o in overrides]
    last = {key: i for i, key in enumerate(keys) if key is not None}
    prefix: dict[str, str] = {}  # an added key (+ / ++) stays added when a later entry sets it plainly
    for o, key in zip(overrides, keys):
        if key is not None and o.startswith("+"):
            prefix.setdefault(key, o[: len(o) - len(o.lstrip("+"))])
    out = []
    for i, (o, key) in enumerate(zip(overrides, keys)):
        if key is None:
            out.append(o)
        elif last[key] == i:
            out.append(o if o.startswith(("+", "~")) else prefix.get(key, "") + o)
    return out


def reproduction_names(*, extra_dirs: tuple[Path, ...] = ()) -> list[str]:
    """Names of the experiments that carry a ``reproduction`` block."""
    return [
        name
        for name in names("experiment", extra_dirs=extra_dirs)
        if isinstance(read_config("experiment", name, extra_dirs=extra_dirs).get("reproduction"), Mapping)
    ]


def profile_names(experiment: str, *, extra_dirs: tuple[Path, ...] = ()) -> list[str]:
    """The profiles an experiment's ``reproduction`` block defines, in file order."""
    block = read_config("experiment", experiment, extra_dirs=extra_dirs).get("reproduction")
    profiles = block.get("profiles") if isinstance(block, Mapping) else None
    return [str(name) for name in profiles] if isinstance(profiles, Mapping) else []


def load_plan(experiment: str, profile: str, *, extra_dirs: tuple[Path, ...] = ()) -> ReproductionPlan:
    """Read and validate the ``reproduction`` block of ``experiment`` for ``profile``.

    Raises
    ------
    ConfigError
        Unknown experiment, no ``reproduction`` block, unknown keys or profile, malformed sweeps.
    """
    data = read_config("experiment", experiment, extra_dirs=extra_dirs)
    where = str(config_path("experiment", experiment, extra_dirs=extra_dirs))
    block = data.get("reproduction")
    if not isinstance(block, Mapping):
        raise ConfigError(
            f"{where}: experiment {experiment!r} has no reproduction block; reproductions are: "
            + ", ".join(reproduction_names(extra_dirs=extra_dirs))
        )
    _no_unknown(block, BLOCK_KEYS, f"{where}: reproduction")
    for key in ("id", "paper", "title", "checks"):
        if not isinstance(block.get(key), str) or not block[key].strip():
            raise ConfigError(f"{where}: reproduction.{key} must be a non-empty string")
    profiles = block.get("profiles")
    if not isinstance(profiles, Mapping) or not profiles:
        raise ConfigError(f"{where}: reproduction.profiles must map profile names to settings")
    if profile not in profiles:
        raise ConfigError(
            f"{where}: unknown reproduction profile {profile!r}; expected one of: {', '.join(profiles)}"
        )
    settings = profiles[profile] or {}
    if not isinstance(settings, Mapping):
        raise ConfigError(f"{where}: reproduction.profiles.{profile} must be a mapping")
    _no_unknown(settings, PROFILE_KEYS, f"{where}: reproduction.profiles.{profile}")
    sweeps_raw = settings["sweeps"] if "sweeps" in settings else block.get("sweeps", {"main": []})
    return ReproductionPlan(
        experiment=experiment,
        id=str(block["id"]),
        paper=str(block["paper"]),
        title=str(block["title"]),
        section=str(block.get("section") or ""),
        checks_module=str(block["checks"]),
        profile=profile,
        description=" ".join(str(settings.get("description") or "").split()),
        overrides=_string_list(
            settings.get("overrides"), f"{where}: reproduction.profiles.{profile}.overrides"
        ),
        sweeps=_sweeps(sweeps_raw, f"{where}: reproduction sweeps of profile {profile!r}"),
        persist=_flag(settings.get("persist", False), f"{where}: reproduction.profiles.{profile}.persist"),
    )


def _flag(raw: Any, where: str) -> bool:
    if not isinstance(raw, bool):
        raise ConfigError(f"{where} must be true or false; got {raw!r}")
    return raw


def _sweeps(raw: Any, where: str) -> tuple[Sweep, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where} must map sweep names to override lists")
    out = []
    for name, overrides in raw.items():
        if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
            raise ConfigError(f"{where}: sweep name {name!r} must be a word (letters, digits, - and _)")
        out.append(Sweep(name, _string_list(overrides, f"{where}.{name}")))
    return tuple(out)


def _string_list(raw: Any, where: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, (list, tuple)) or not all(isinstance(v, (str, int, float)) for v in raw):
        raise ConfigError(f"{where} must be a list of Hydra overrides (key=value strings); got {raw!r}")
    items = tuple(str(v) for v in raw)
    bad = [v for v in items if "=" not in v and not v.startswith("~")]
    if bad:
        raise ConfigError(f"{where}: {bad[0]!r} is not a Hydra override (expected key=value or ~key)")
    return items


def _no_unknown(mapping: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
    unknown = sorted(set(mapping) - set(allowed))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}; expected some of: {', '.join(allowed)}"
        )


__all__ = ["ReproductionPlan", "Sweep", "load_plan", "profile_names", "reproduction_names"]
