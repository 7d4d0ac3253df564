"""Hydra composes each distinct defaults tree once per command (issue 18), with the same results."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hydra import initialize_config_module
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode
from omegaconf import OmegaConf

from harness import composition_memo

JOBS: list[list[str]] = [
    ["generator=identity", "suite=fast", "profile=quick"],
    ["generator=identity", "suite=fast", "profile=quick", "gen_seed=3"],
    ["generator=identity", "suite=fast", "gen_seed=4", "+foo=1"],
    ["experiment=quickstart", "generator=uniform", "gen_seed=1"],
    ["dataset=loan", "generator=smote", "generator.knn=3", "hydra/launcher=joblib"],
    ["generator=identity", "hydra.mode=RUN", "hydra.sweep.dir=/tmp/x"],
    ["generator=identity", "~runtime.cache_dir"],
    ["generator=identity", "runtime={threads: 2}"],
    ["generator=nope"],
    ["gen_seed=1,2"],
    ["generator.nope=1"],
]


@pytest.fixture
def hydra_app() -> Iterator[object]:
    GlobalHydra.instance().clear()
    with initialize_config_module(config_module="experiments", version_base=None):
        yield GlobalHydra.instance().hydra
    composition_memo.uninstall()


def _compose_all(hydra: object, jobs: list[list[str]]) -> list[str]:
    out = []
    for job in jobs:
        for mode in (RunMode.RUN, RunMode.MULTIRUN):
            try:
                cfg = hydra.compose_config("config", job, run_mode=mode, from_shell=False)  # type: ignore[attr-defined]
                out.append(OmegaConf.to_yaml(cfg))
            except Exception as exc:  # errors must be the same too
                out.append(f"{type(exc).__name__}: {exc}")
    return out


def test_memoised_compositions_equal_hydras(hydra_app: object) -> None:
    composition_memo.uninstall()
    expected = _compose_all(hydra_app, JOBS)
    composition_memo.install()
    composition_memo.clear()
    first = _compose_all(hydra_app, JOBS)
    again = _compose_all(hydra_app, JOBS)
    assert first == expected and again == expected
    stats = composition_memo.STATS
    assert stats["tree_hits"] > stats["tree_misses"] and stats["config_hits"] > stats["config_misses"]


def test_switch_leaves_hydra_alone(hydra_app: object, monkeypatch: pytest.MonkeyPatch) -> None:
    composition_memo.uninstall()
    monkeypatch.setenv(composition_memo.ENV, "0")
    composition_memo.install()
    _compose_all(hydra_app, JOBS[:2])
    assert not any(composition_memo.STATS.values())


def test_an_edited_user_config_is_read_again(tmp_path: Path) -> None:
    folder = tmp_path / "configs" / "generator"
    folder.mkdir(parents=True)
    (folder / "mine.yaml").write_text("_target_: generators.baselines.Identity\n")
    overrides = ["generator=mine", f"hydra.searchpath=[file://{tmp_path / 'configs'}]"]
    GlobalHydra.instance().clear()
    composition_memo.install()
    composition_memo.clear()
    try:
        with initialize_config_module(config_module="experiments", version_base=None):
            hydra = GlobalHydra.instance().hydra
            assert hydra is not None
            first = hydra.compose_config("config", overrides, run_mode=RunMode.RUN)
            (folder / "mine.yaml").write_text("_target_: generators.baselines.Identity\nextra: 1\n")
            second = hydra.compose_config("config", overrides, run_mode=RunMode.RUN)
    finally:
        composition_memo.uninstall()
    assert "extra" not in first.generator and second.generator.extra == 1


def _flags_and_types(cfg: object, path: str = "") -> list[tuple[str, object, object, object, object]]:
    """Every node's struct / readonly flags, ref type and object type, depth first."""
    from omegaconf import DictConfig, ListConfig

    node = cfg
    out = [
        (
            path,
            OmegaConf.is_struct(node),  # type: ignore[arg-type]
            OmegaConf.is_readonly(node),  # type: ignore[arg-type]
            node._metadata.ref_type,  # type: ignore[attr-defined]
            node._metadata.object_type,  # type: ignore[attr-defined]
        )
    ]
    if isinstance(node, DictConfig):
        for key in node:
            child = node._get_node(key)
            if isinstance(child, (DictConfig, ListConfig)):
                out += _flags_and_types(child, f"{path}.{key}")
    elif isinstance(node, ListConfig):
        for i in range(len(node)):
            child = node._get_node(i)
            if isinstance(child, (DictConfig, ListConfig)):
                out += _flags_and_types(child, f"{path}[{i}]")
    return out


def test_clone_config_is_an_independent_equal_copy(hydra_app: object) -> None:
    import copy

    from omegaconf import open_dict, read_write

    cfg = hydra_app.compose_config("config", JOBS[3], run_mode=RunMode.RUN, from_shell=False)  # type: ignore[attr-defined]
    OmegaConf.set_readonly(cfg.hydra, True)
    clone, reference = composition_memo.clone_config(cfg), copy.deepcopy(cfg)
    assert OmegaConf.to_yaml(clone) == OmegaConf.to_yaml(reference) == OmegaConf.to_yaml(cfg)
    assert _flags_and_types(clone) == _flags_and_types(reference)
    assert OmegaConf.get_type(clone, "hydra") is OmegaConf.get_type(cfg, "hydra")
    with read_write(clone), open_dict(clone):
        clone.gen_seed = 99
        clone.runtime.threads = 7
    with read_write(clone.hydra):
        clone.hydra.job.name = "changed"
    assert cfg.gen_seed == 1 and cfg.runtime.threads != 7 and cfg.hydra.job.name != "changed"


def test_job_dict_equals_the_resolved_config_without_hydra(hydra_app: object) -> None:
    import copy

    from omegaconf import open_dict

    from harness.preflight import job_dict
    from harness.spec import plain_dict

    compared = 0
    for job in [*JOBS, ["experiment=quickstart", "description=${generator._target_}"]]:
        try:
            cfg = hydra_app.compose_config("config", job, run_mode=RunMode.RUN, from_shell=False)  # type: ignore[attr-defined]
        except Exception:
            continue
        before = OmegaConf.to_yaml(cfg)
        reference = copy.deepcopy(cfg)
        with open_dict(reference):
            reference.pop("hydra")
        assert job_dict(cfg) == plain_dict(reference), job
        assert OmegaConf.to_yaml(cfg) == before  # not changed
        compared += 1
    assert compared >= 8
