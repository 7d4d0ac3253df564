"""Precedence of a profile's generator/metric overrides against explicit command-line values."""

from __future__ import annotations

from pathlib import Path

from harness.app import explicit_parameters, trial_config
from harness.preflight import compose_job, hydra_context, job_dict, sweep_safe_overrides
from harness.spec import plain_dict


def _trial(overrides: list[str]):  # type: ignore[no-untyped-def]
    with hydra_context():
        cfg = compose_job(overrides)
    return trial_config(
        job_dict(cfg),
        plain_dict(cfg.hydra.runtime.choices),
        run_id="t",
        base_dir=Path.cwd(),
        overrides=overrides,
    )


def test_explicit_parameters_first_level_only() -> None:
    found = explicit_parameters(
        [
            "generator.epochs=3",
            "+generator.g2_params.k=1",
            "suite.metrics.m.x=1",
            "dataset=adult",
            "gen_seed=2",
        ]
    )
    assert found == {"generator": {"epochs", "g2_params"}, "suite.metrics.m": {"x"}}


def test_profile_overrides_apply_unless_the_command_line_sets_the_parameter() -> None:
    # profile quick shrinks sdv_ctgan to 5 epochs and batch size 100 ...
    shrunk = _trial(["profile=quick", "generator=sdv_ctgan"])
    assert shrunk.generator_cfg["epochs"] == 5 and shrunk.generator_cfg["batch_size"] == 100
    # ... but a sweep value set explicitly wins (the profile still sets what the command line leaves)
    explicit = _trial(["profile=quick", "generator=sdv_ctgan", "generator.epochs=150"])
    assert explicit.generator_cfg["epochs"] == 150 and explicit.generator_cfg["batch_size"] == 100
    metric = _trial(["profile=quick", "suite.metrics.dcr_nndr.max_rows=123"])
    assert metric.metrics["dcr_nndr"]["max_rows"] == 123
    assert _trial(["profile=quick"]).metrics["dcr_nndr"]["max_rows"] == 2000


def test_sweep_safe_overrides_pins_nested_group_values() -> None:
    assert sweep_safe_overrides(
        ["generator=smote,borderline_smote", "generator.knn=3", "+generator.k=[1, 2]", "data.max_rows=10",
         "generator.ratio=0.5,1.0", "~generator.x"]
    ) == [
        "generator=smote,borderline_smote", "generator.knn=choice(3)", "+generator.k=choice([1, 2])",
        "data.max_rows=10", "generator.ratio=0.5,1.0", "~generator.x",
    ]  # fmt: skip
