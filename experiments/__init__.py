"""Hydra config root of privbench (YAML only; a package so installs ship the configs)."""
