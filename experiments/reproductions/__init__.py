"""Per-paper reproduction checks (``CHECKS``) and regenerated tables/figures (``artifacts``)."""
