"""The dataset layer: bundled data files, the YAML ``source`` block and the loader.

``load_spec(name)`` reads ``experiments/dataset/<name>.yaml``; ``load_dataset(spec)``
returns a :class:`LoadedDataset` (canonical table, predefined test mask, content digest).
Bundled files live under :data:`DATA_ROOT`; ``DATASETS.md`` at the repository root
documents every dataset and how to add your own. See :mod:`harness.datasets.loader` for
the ``source`` schema.
"""

from harness.datasets.hierarchies import hierarchy_path, load_hierarchy
from harness.datasets.loader import LoadedDataset, clear_cache, load_dataset, load_spec
from harness.datasets.paths import DATA_ROOT
from harness.datasets.simulated import simulate

__all__ = [
    "DATA_ROOT",
    "LoadedDataset",
    "clear_cache",
    "hierarchy_path",
    "load_dataset",
    "load_hierarchy",
    "load_spec",
    "simulate",
]
