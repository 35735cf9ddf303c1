"""scripts/_setup.sh's lock: set-ups started at once run one after the other, without flock(1)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUP = ROOT / "scripts" / "_setup.sh"
BASH = shutil.which("bash")
# What the lock and the sourcing of _setup.sh need beyond bash's builtins; flock is not among them.
TOOLS = ("dirname", "ln", "readlink", "rm", "sleep")

HOLD_THE_LOCK = """
set -euo pipefail  # as scripts/brudno and scripts/test source it
source "$SETUP"
if command -v flock >/dev/null; then echo "flock is on PATH" >&2; exit 3; fi
brudno_lock "$LOCK"
echo "start $$" >> "$LOG"
sleep 0.3
echo "end $$" >> "$LOG"
brudno_unlock "$LOCK"
"""

pytestmark = pytest.mark.skipif(BASH is None or os.name == "nt", reason="needs bash")


@pytest.fixture
def no_flock_env(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds only TOOLS (so no flock), with a lock and a log in tmp_path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        (bin_dir / tool).symlink_to(shutil.which(tool))
    return {"PATH": str(bin_dir), "SETUP": str(SETUP), "LOCK": str(tmp_path / "holder"),
            "LOG": str(tmp_path / "log")}


def hold_the_lock(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen([BASH, "-c", HOLD_THE_LOCK], env=env, stderr=subprocess.PIPE, text=True)


def test_two_set_ups_started_at_once_hold_the_lock_one_after_the_other(no_flock_env):
    first, second = hold_the_lock(no_flock_env), hold_the_lock(no_flock_env)
    for process in (first, second):
        assert process.wait(timeout=30) == 0, process.stderr.read()
    lines = [line.split() for line in Path(no_flock_env["LOG"]).read_text().splitlines()]
    assert [kind for kind, _ in lines] == ["start", "end", "start", "end"]
    assert lines[0][1] == lines[1][1] != lines[2][1] == lines[3][1]
    assert not os.path.lexists(no_flock_env["LOCK"])


def test_a_lock_left_by_a_set_up_that_died_is_taken_over(no_flock_env):
    gone = subprocess.Popen([shutil.which("sleep"), "0"])
    gone.wait()
    os.symlink(str(gone.pid), no_flock_env["LOCK"])  # as a killed set-up leaves it
    process = hold_the_lock(no_flock_env)
    assert process.wait(timeout=30) == 0, process.stderr.read()
    assert Path(no_flock_env["LOG"]).read_text().split() == ["start", str(process.pid),
                                                             "end", str(process.pid)]
    assert not os.path.lexists(no_flock_env["LOCK"])


def test_a_lock_held_by_a_live_process_is_waited_for(no_flock_env):
    holder = subprocess.Popen([shutil.which("sleep"), "30"])
    try:
        os.symlink(str(holder.pid), no_flock_env["LOCK"])
        process = hold_the_lock(no_flock_env)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)
        assert not Path(no_flock_env["LOG"]).exists()
        os.unlink(no_flock_env["LOCK"])  # the holder is done
        assert process.wait(timeout=30) == 0, process.stderr.read()
        assert Path(no_flock_env["LOG"]).read_text().split()[0] == "start"
    finally:
        holder.kill()
        holder.wait()
