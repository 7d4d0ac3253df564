"""Deterministic train / control / test splits.

A split is a pure function of (row count, target, split config, ``split_seed``, ``fold``)
and, for ``predefined`` splits, the dataset's test mask. The control split is the
attacker's control set and the "new real individuals" baseline; it is never shown to a
generator (except ``real_holdout``). ``control: test`` makes control and test the same rows,
as the ε-PrivateSMOTE paper's protocol does; ``control: half_of_test`` cuts the control rows
from the test rows instead (half each), so a reference that releases control rows
(``real_holdout``) is never scored on rows it released (``privbench evaluate --holdout``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold, StratifiedShuffleSplit

from harness.errors import ConfigError, DataError, PrivbenchError
from harness.seeding import derive_seed

SplitKind = Literal["holdout", "kfold", "predefined", "none"]
ControlMode = Literal["separate", "test", "half_of_test"]


@dataclass(frozen=True)
class SplitConfig:
    """How to split a dataset.

    Attributes
    ----------
    kind : {"holdout", "kfold", "predefined", "none"}
        ``holdout``: one random test fraction; ``kfold``: fold ``fold`` of ``n_folds`` is the
        test part; ``predefined``: the dataset's own test rows (file roles or test indexes);
        ``none``: no holdout, every row is a training row and control and test are empty
        (protocols whose ground truth is the whole table, e.g. Raab, PSD 2024).
    test_size : float
        Test fraction for ``holdout``.
    n_folds : int
        Number of folds for ``kfold``.
    control : {"separate", "test", "half_of_test"}
        ``separate``: a further ``control_size`` fraction (of all rows) is cut from the
        non-test rows; ``test``: control is the test split; ``half_of_test``: the test rows are
        halved (stratified), one half is control, the other the test split, and every
        non-test row trains.
    control_size : float
        Control fraction of all rows when ``control == "separate"``.
    stratify : bool
        Stratify on the target for classification tasks.
    """

    kind: SplitKind = "holdout"
    test_size: float = 0.2
    n_folds: int = 5
    control: ControlMode = "separate"
    control_size: float = 0.2
    stratify: bool = True

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> SplitConfig:
        """Build from a config mapping; unknown keys and bad values raise :class:`ConfigError`."""
        data = dict(data or {})
        allowed = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise ConfigError(
                f"split: unknown key(s) {', '.join(unknown)}; expected some of: {', '.join(sorted(allowed))}"
            )
        cfg = cls(**data)
        cfg.validate()
        return cfg

    def validate(self) -> None:
        """Raise :class:`ConfigError` naming the bad key."""
        if self.kind not in ("holdout", "kfold", "predefined", "none"):
            raise ConfigError(
                f"split.kind must be one of holdout, kfold, predefined, none; got {self.kind!r}"
            )
        if self.control not in ("separate", "test", "half_of_test"):
            raise ConfigError(
                f"split.control must be 'separate', 'test' or 'half_of_test'; got {self.control!r}"
            )
        if not 0 < self.test_size < 1:
            raise ConfigError(f"split.test_size must be in (0, 1); got {self.test_size!r}")
        if not 0 < self.control_size < 1:
            raise ConfigError(f"split.control_size must be in (0, 1); got {self.control_size!r}")
        if self.control == "separate" and self.kind == "holdout" and self.test_size + self.control_size >= 1:
            raise ConfigError(
                "split.test_size + split.control_size must be < 1; got "
                f"{self.test_size} + {self.control_size}"
            )
        if int(self.n_folds) != self.n_folds or self.n_folds < 2:
            raise ConfigError(f"split.n_folds must be an integer >= 2; got {self.n_folds!r}")

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping (for cache keys and results)."""
        return asdict(self)


@dataclass(frozen=True)
class Split:
    """Row positions of the train, control and test parts (sorted, disjoint train)."""

    train: np.ndarray
    control: np.ndarray
    test: np.ndarray
    details: dict[str, Any] = field(default_factory=dict)

    def take(self, frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """Return (train, control, test) frames with fresh RangeIndexes."""

        def part(idx: np.ndarray) -> pd.DataFrame:
            return frame.iloc[idx].reset_index(drop=True)

        return part(self.train), part(self.control), part(self.test)


def make_split(
    n_rows: int,
    cfg: SplitConfig,
    *,
    split_seed: int,
    fold: int = 0,
    y: pd.Series | np.ndarray | None = None,
    test_mask: np.ndarray | None = None,
) -> Split:
    """Split ``n_rows`` rows deterministically.

    Parameters
    ----------
    n_rows : int
        Number of rows of the dataset.
    cfg : SplitConfig
    split_seed : int
        Seed of the partition (independent of the generator seed).
    fold : int
        Fold index for ``kfold`` (must be 0 otherwise).
    y : array-like, optional
        Class labels to stratify on (None: no stratification).
    test_mask : bool array, optional
        The dataset's predefined test rows (required for ``predefined``).

    Returns
    -------
    Split

    Raises
    ------
    DataError
        If the rows (or a class) are too few for the split (scikit-learn's reason in one line).
    """
    try:
        return _make_split(n_rows, cfg, split_seed=split_seed, fold=fold, y=y, test_mask=test_mask)
    except ValueError as exc:
        if isinstance(exc, PrivbenchError):  # privbench's own one-line errors pass through
            raise
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        classes = f" and {pd.Series(np.asarray(y)).nunique()} classes" if y is not None else ""
        raise DataError(
            f"{n_rows} rows{classes} are too few for split {cfg.kind!r} ({reason}); "
            "expected more rows per class (or split.kind=none)"
        ) from None


def _make_split(
    n_rows: int,
    cfg: SplitConfig,
    *,
    split_seed: int,
    fold: int,
    y: pd.Series | np.ndarray | None,
    test_mask: np.ndarray | None,
) -> Split:
    if n_rows < 4:
        raise ConfigError(f"a dataset needs at least 4 rows to split; got {n_rows}")
    if isinstance(fold, bool) or int(fold) != fold or fold < 0:
        raise ConfigError(f"fold must be a non-negative integer; got {fold!r}")
    fold = int(fold)
    if cfg.kind != "kfold" and fold != 0:
        raise ConfigError(f"fold must be 0 for split.kind={cfg.kind!r}; got {fold}")
    if cfg.kind == "kfold" and fold >= cfg.n_folds:
        raise ConfigError(f"fold must be < split.n_folds={cfg.n_folds}; got {fold}")
    everything = np.arange(n_rows)
    if cfg.kind == "none":
        empty = np.zeros(0, dtype=everything.dtype)
        return Split(train=everything, control=empty, test=empty.copy(), details={"stratified": False})
    labels = _stratification_labels(y, cfg, n_rows)
    details: dict[str, Any] = {"stratified": labels is not None}

    if cfg.kind == "predefined":
        if test_mask is None:
            raise ConfigError(
                "split.kind=predefined needs a dataset with a predefined test split (file role 'test' or a test_index)"
            )
        test = everything[np.asarray(test_mask, dtype=bool)]
        rest = everything[~np.asarray(test_mask, dtype=bool)]
    elif cfg.kind == "holdout":
        splitter: Any = (
            StratifiedShuffleSplit(n_splits=1, test_size=cfg.test_size, random_state=split_seed)
            if labels is not None
            else ShuffleSplit(n_splits=1, test_size=cfg.test_size, random_state=split_seed)
        )
        rest, test = next(splitter.split(everything, labels))
    else:
        splitter = (
            StratifiedKFold(n_splits=cfg.n_folds, shuffle=True, random_state=split_seed)
            if labels is not None
            else KFold(n_splits=cfg.n_folds, shuffle=True, random_state=split_seed)
        )
        rest, test = list(splitter.split(everything, labels))[fold]

    if cfg.control == "test":
        train, control = np.sort(rest), np.sort(test)
    elif cfg.control == "half_of_test":
        train = np.sort(rest)
        control, test = _halves(test, None if labels is None else labels[test], split_seed, fold)
    else:
        share = cfg.control_size * n_rows / len(rest)
        if not 0 < share < 1:
            raise ConfigError(f"split.control_size={cfg.control_size} leaves no training rows")
        sub_labels = None if labels is None else labels[rest]
        if sub_labels is not None and np.min(np.unique(sub_labels, return_counts=True)[1]) < 2:
            sub_labels = None
        sub = (
            StratifiedShuffleSplit(
                n_splits=1, test_size=share, random_state=derive_seed(split_seed, "control", fold)
            )
            if sub_labels is not None
            else ShuffleSplit(
                n_splits=1, test_size=share, random_state=derive_seed(split_seed, "control", fold)
            )
        )
        tr_pos, ctl_pos = next(sub.split(rest, sub_labels))
        train, control = np.sort(rest[tr_pos]), np.sort(rest[ctl_pos])
    return Split(train=train, control=control, test=np.sort(test), details=details)


def _halves(
    rows: np.ndarray, labels: np.ndarray | None, split_seed: int, fold: int
) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` cut in two halves (stratified where every class has two rows): (control, test)."""
    if len(rows) < 2:
        raise ConfigError(f"split.control=half_of_test needs at least 2 test rows; got {len(rows)}")
    if labels is not None and np.min(np.unique(labels, return_counts=True)[1]) < 2:
        labels = None
    seed = derive_seed(split_seed, "control", fold)
    splitter: Any = (
        StratifiedShuffleSplit(n_splits=1, test_size=0.5, random_state=seed)
        if labels is not None
        else ShuffleSplit(n_splits=1, test_size=0.5, random_state=seed)
    )
    first, second = next(splitter.split(rows, labels))
    return np.sort(rows[first]), np.sort(rows[second])


def _stratification_labels(
    y: pd.Series | np.ndarray | None, cfg: SplitConfig, n_rows: int
) -> np.ndarray | None:
    if y is None or not cfg.stratify:
        return None
    labels = pd.Series(np.asarray(y)).astype(str).fillna("<NA>").to_numpy()
    if len(labels) != n_rows:
        raise ConfigError(f"stratification labels have {len(labels)} rows; expected {n_rows}")
    counts = np.unique(labels, return_counts=True)[1]
    needed = cfg.n_folds if cfg.kind == "kfold" else 2
    if counts.min() < needed:
        return None  # a class too small to stratify: fall back to a plain split
    return labels
