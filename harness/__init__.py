"""privbench harness: the framework (no concrete generator or metric lives here)."""

__version__ = "0.1.0"
