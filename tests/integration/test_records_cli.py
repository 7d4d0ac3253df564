"""Bad input to ``privbench records`` and ``privbench leak-check``: one line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Runner


def test_records_and_leak_check_refuse_bad_input(privbench: Runner, tmp_path: Path) -> None:
    missing = privbench("records", str(tmp_path / "nope"), check=False)
    assert missing.returncode == 2 and "not a run directory" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    empty = tmp_path / "empty_run"
    empty.mkdir()
    (empty / "notes.md").write_text("no rows here\n")
    for command in (["records", str(empty)], ["leak-check", str(empty)]):
        proc = privbench(*command, check=False)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and str(empty) in proc.stderr
    assert sorted(p.name for p in empty.iterdir()) == ["notes.md"]  # nothing written
