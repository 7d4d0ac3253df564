"""harness.bootstrap installs the extras each command needs, and only the difference later."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import bootstrap


@pytest.fixture
def fake_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """A venv whose python exists; pip commands are recorded instead of run."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").write_text("")
    monkeypatch.setattr(bootstrap, "VENV", tmp_path)
    monkeypatch.setattr(bootstrap, "STAMP", tmp_path / ".privbench-installed")
    calls: list[list[str]] = []
    monkeypatch.setattr(bootstrap, "_run", lambda cmd, **kw: calls.append([str(c) for c in cmd]))
    return calls


def _installs(calls: list[list[str]]) -> list[str]:
    return [c[-1] for c in calls if "-e" in c or c[-1].startswith("torch")]


def test_demo_installs_sdv_without_jax_or_dev_tools(fake_venv: list[list[str]]) -> None:
    bootstrap.setup(bootstrap.COMMAND_EXTRAS["demo"])
    assert _installs(fake_venv) == ["torch==2.13.0", ".[sdv]"]


def test_test_installs_only_what_is_missing_then_nothing(fake_venv: list[list[str]]) -> None:
    bootstrap.setup(bootstrap.COMMAND_EXTRAS["demo"])
    fake_venv.clear()
    bootstrap.setup(bootstrap.COMMAND_EXTRAS["test"])
    assert _installs(fake_venv) == ["torch==2.13.0", ".[cluster,dev,dp,sdv]"]
    fake_venv.clear()
    bootstrap.setup(bootstrap.COMMAND_EXTRAS["demo"])  # a subset of what is installed
    assert fake_venv == []


def test_core_setup_needs_no_torch(fake_venv: list[list[str]]) -> None:
    bootstrap.setup(())
    assert _installs(fake_venv) == ["."]


def test_a_stamp_of_another_pyproject_reinstalls(fake_venv: list[list[str]]) -> None:
    bootstrap.STAMP.write_text("an older pyproject" + bootstrap.EXTRAS_LINE + "sdv")
    bootstrap.setup(("sdv",))
    assert _installs(fake_venv) == ["torch==2.13.0", ".[sdv]"]
