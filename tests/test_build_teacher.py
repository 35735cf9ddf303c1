"""The generator's teacher built for this CPU (scripts/training/data/teacher.py): which build, and when
the generator takes it."""

from __future__ import annotations

from scripts.training.data import teacher as build_teacher
from paths import STOCKFISH, needs_stockfish

ZEN4 = {"sse4_1", "popcnt", "avx2", "bmi2", "avx512f", "avx512bw", "avx512_vnni"}


def test_the_build_is_the_fastest_the_cpus_flags_allow():
    assert build_teacher.choose_arch(ZEN4) == "x86-64-vnni512"
    assert build_teacher.choose_arch(ZEN4 - {"avx512_vnni"}) == "x86-64-avx512"
    assert build_teacher.choose_arch({"sse4_1", "popcnt", "avx2", "bmi2"}) == "x86-64-avx2"
    assert build_teacher.choose_arch({"sse4_1", "popcnt"}) == "x86-64-sse41-popcnt"
    assert build_teacher.choose_arch(set()) == "x86-64"


def test_the_generator_takes_the_built_teacher_only_when_it_is_there(tmp_path, monkeypatch):
    monkeypatch.setenv("BRUDNO_DATA", str(tmp_path / "data"))
    built = tmp_path / "teacher" / "stockfish"
    assert build_teacher.teacher_path() == built
    assert build_teacher.default_teacher() == build_teacher.INSTALLED
    built.parent.mkdir()
    built.write_text("#!/bin/sh\n")
    assert build_teacher.default_teacher() == build_teacher.INSTALLED  # not executable
    built.chmod(0o755)
    assert build_teacher.default_teacher() == str(built)


@needs_stockfish
def test_the_bench_node_count_the_build_is_checked_by_is_read_from_stockfish():
    nodes = build_teacher.bench_nodes(STOCKFISH)
    assert nodes > 100_000
    assert build_teacher.bench_nodes(STOCKFISH) == nodes  # a fixed-depth bench is deterministic
