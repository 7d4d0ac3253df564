"""Where dataset files live: the bundled data root and the resolution of ``source`` paths."""

from __future__ import annotations

from pathlib import Path

from harness.errors import ConfigError

DATA_ROOT: Path = Path(__file__).resolve().parent / "files"
"""Root of the bundled (vendored) data files: ``harness/datasets/files``."""


def resolve_path(path: str, kind: str, *, base_dir: Path | None, where: str) -> Path:
    """Resolve a ``source`` file path.

    Parameters
    ----------
    path : str
        The path as written in the YAML.
    kind : {"bundled", "path"}
        ``bundled``: relative to :data:`DATA_ROOT` (must stay inside it); ``path``: absolute, or
        relative to ``base_dir`` (default: the current working directory). ``~`` is expanded.
    base_dir : Path or None
    where : str
        Prefix of error messages (names the YAML key).

    Raises
    ------
    ConfigError
        If a bundled path is absolute or leaves the data root.
    """
    if kind == "bundled":
        rel = Path(path)
        resolved = (DATA_ROOT / rel).resolve()
        if rel.is_absolute() or not resolved.is_relative_to(DATA_ROOT):
            raise ConfigError(
                f"{where} must be relative to the bundled data root {DATA_ROOT}; got {path!r} "
                "(use source.kind: path for your own files)"
            )
        return resolved
    candidate = Path(path).expanduser()
    if not candidate.is_absolute():
        candidate = Path(base_dir if base_dir is not None else Path.cwd()) / candidate
    return candidate.resolve()
