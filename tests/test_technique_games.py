"""Tests for scripts/studies/technique_games.py: the worth plot is drawn from recorded results."""

from __future__ import annotations

import json

from scripts.studies import technique_games


def test_the_worth_plot_is_drawn_from_recorded_results_without_playing(tmp_path, monkeypatch):
    results = {"null move": {"wins": 22, "draws": 37, "losses": 41, "tc": "1.3+0.013",
                             "overrides": technique_games.TECHNIQUES["null move"], "forfeits": 0},
               "PVS": {"wins": 4, "draws": 4, "losses": 92, "tc": "1.3+0.013",
                       "overrides": technique_games.TECHNIQUES["PVS"], "forfeits": 0}}
    out, saves, png = tmp_path / "games.json", tmp_path / "saves.json", tmp_path / "worth.png"
    out.write_text(json.dumps(results))
    saves.write_text(json.dumps({"null move": -0.03, "PVS": 0.95}))

    def no_match(*args):
        raise AssertionError("a match was started")

    monkeypatch.setattr(technique_games, "play", no_match)
    assert technique_games.main(["--out", str(out), "--only", "null move", "PVS",
                                 "--saves", str(saves), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads(out.read_text()) == results


def test_saved_shares_sum_the_positions_of_alphabeta_tables_rows():
    def row(label, kind, position, nodes, depth=6):
        return {"row": label, "kind": kind, "off": [] if label.endswith("search)") else ["x"],
                "position": position, "depth": depth, "nodes": nodes}

    rows = [row("+ internal iterative reduction (= full search)", "add", "a", 30),
            row("+ internal iterative reduction (= full search)", "add", "b", 10),
            row("full search without null move", "without", "a", 20),
            row("full search without null move", "without", "b", 60),
            row("full search without null move", "without", "a", 1, depth=5)]
    assert technique_games.saved_shares(rows) == {"null move": 0.5}
