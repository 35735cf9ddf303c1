"""scripts/matches/sprt.py: the fastchess test of a change, at a control scaled to the machine."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from scripts.matches import sprt


def test_the_reference_control_is_scaled_by_the_machine_factor():
    assert sprt.scaled_tc("5+0.05", 0.74) == "3.7+0.037"
    assert sprt.scaled_tc("10+0.1", 1.25) == "12.5+0.125"
    assert sprt.scaled_tc("8", 0.5) == "4+0"


def test_a_launcher_runs_its_tree_with_its_search_parameters(tmp_path: Path):
    tree = tmp_path / "tree"
    tree.mkdir()
    fake_python = tmp_path / "python"
    fake_python.write_text('#!/bin/sh\necho "$BRUDNO_PARAMS|$(pwd)|$*"\n')
    fake_python.chmod(0o755)
    script = tmp_path / "new.sh"
    script.write_text(sprt.launcher(tree, "MOVES_TO_GO=26 INCREMENT_SHARE=150", str(fake_python)))
    script.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key != "BRUDNO_PARAMS"}
    printed = subprocess.run([str(script)], capture_output=True, text=True, env=env,
                             check=True).stdout.strip()
    assert printed == f"MOVES_TO_GO=26 INCREMENT_SHARE=150|{tree}|-m engine"


def test_the_test_counts_pairs_with_the_given_bounds(tmp_path: Path, capsys):
    assert sprt.main(["--out", str(tmp_path), "--factor", "0.8", "--tc", "5+0.05",
                      "--bounds", "0", "5", "--fastchess", "/opt/fastchess", "--dry-run",
                      "--new-params", "MOVES_TO_GO=26", "--new-option", "EvalFile=/nets/a.npz"]) == 0
    command = capsys.readouterr().out.splitlines()[-1].split()
    assert command[0] == "/opt/fastchess"
    assert "tc=4+0.04" in command
    # The new side's own option, between its -engine and the old side's.
    assert command.index("option.EvalFile=/nets/a.npz") < command.index(f"cmd={tmp_path / 'base.sh'}")
    # Each opening played twice with colours reversed: fastchess scores the pairs (pentanomial).
    assert command[command.index("-games") + 1] == "2" and "-repeat" in command
    sprt_at = command.index("-sprt")
    assert command[sprt_at + 1:sprt_at + 3] == ["elo0=0", "elo1=5"]
    assert "BRUDNO_PARAMS=MOVES_TO_GO=26" in (tmp_path / "new.sh").read_text()
    assert "BRUDNO_PARAMS" not in (tmp_path / "base.sh").read_text()


def test_a_resumed_test_goes_on_from_fastchess_state(tmp_path: Path, capsys):
    assert sprt.main(["--out", str(tmp_path), "--fastchess", "/opt/fastchess", "--resume",
                      "--concurrency", "3", "--dry-run"]) == 0
    command = capsys.readouterr().out.splitlines()[-1].split()
    assert command == ["/opt/fastchess", "-config", f"file={tmp_path / 'config.json'}",
                       "-concurrency", "3"]


GAME = """[Event "Fastchess Tournament"]
[White "new"]
[Black "base"]
[Result "1-0"]

1. e4 {+0.30/10 0.101s} e5 {-0.25/10 0.100s} 2. Nf3 {+0.31/10 0.100s}
Nc6 {-0.20/10 0.100s} 3. Bb5 {+0.35/11 0.100s} a6 {-0.30/10 0.100s} 1-0
"""


def test_the_games_of_a_test_become_training_chunks(tmp_path: Path):
    from scripts.training.data import chunks

    out, data = tmp_path / "test", tmp_path / "data"
    out.mkdir()
    (out / "games.pgn").write_text(GAME)
    assert sprt.main(["--out", str(out), "--factor", "1", "--fastchess", "true",
                      "--chunks", str(data)]) == 0
    written = chunks.chunk_paths(data)
    assert len(written) == 1 and written[0].name.startswith("sprt-test")
