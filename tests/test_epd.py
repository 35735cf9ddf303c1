"""Tests for scripts/matches/epd.py: EPD parsing, scoring and a short real run."""
import chess
import pytest

from scripts.matches import epd
from paths import DATA, STOCKFISH, needs_stockfish

TACTICS = DATA / "tactics"
BRATKO_KOPEC = str(TACTICS / "bratko_kopec_test.epd")

STS_LINE = ('1kr5/3n4/q3p2p/p2n2p1/PppB1P2/5BP1/1P2Q2P/3R2K1 w - - bm f5; id "STS(v1.0) Undermine.001"; '
            'c0 "f5=10, Be5+=2, Bf2=3, Bg4=2"; c7 "f5 Be5+ Bf2 Bg4"; c8 "10 2 3 2"; c9 "f4f5 d4e5 d4f2 f3g4";')
BK_LINE = '1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1+; id "BK.01";'


def test_bm_is_parsed_from_san():
    position = epd.parse_epd_line(BK_LINE)
    assert position.id == "BK.01"
    assert position.best == [chess.Move.from_uci("d6d1")]
    assert position.avoid == [] and position.points == {}


def test_several_bm_and_an_am_are_all_kept():
    position = epd.parse_epd_line("4k3/8/8/8/8/8/4P3/4K3 w - - bm e4 e3; am Kd1; id \"x.1\";")
    assert set(position.best) == {chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e3")}
    assert position.avoid == [chess.Move.from_uci("e1d1")]


def test_sts_points_come_from_c8_and_c9():
    position = epd.parse_epd_line(STS_LINE)
    assert position.points == {chess.Move.from_uci("f4f5"): 10, chess.Move.from_uci("d4e5"): 2,
                               chess.Move.from_uci("d4f2"): 3, chess.Move.from_uci("f3g4"): 2}
    assert position.theme == "STS(v1.0) Undermine"


def test_a_move_listed_twice_in_c9_keeps_its_higher_score():
    board = chess.Board("7k/8/8/8/8/8/8/K7 w - - 0 1")
    assert epd.parse_sts_points(board, "10 3 9", "a1a2 a1b1 a1b1") == {
        chess.Move.from_uci("a1a2"): 10, chess.Move.from_uci("a1b1"): 9}


def test_mismatched_c8_and_c9_are_rejected():
    with pytest.raises(ValueError):
        epd.parse_sts_points(chess.Board(), "10 5", "e2e4")


def test_line_without_any_answer_is_rejected():
    with pytest.raises(ValueError):
        epd.parse_epd_line('4k3/8/8/8/8/8/4P3/4K3 w - - id "nothing";')


def test_bm_scoring():
    position = epd.parse_epd_line(BK_LINE)
    assert epd.is_solved(position, chess.Move.from_uci("d6d1"))
    assert not epd.is_solved(position, chess.Move.from_uci("d6d2"))
    assert not epd.is_solved(position, None)


def test_am_scoring_accepts_anything_but_the_avoid_move():
    position = epd.parse_epd_line('4k3/8/8/8/8/8/4P3/4K3 w - - am Kd1; id "am.1";')
    assert epd.is_solved(position, chess.Move.from_uci("e2e4"))
    assert not epd.is_solved(position, chess.Move.from_uci("e1d1"))


def test_sts_points_of_the_move_played():
    position = epd.parse_epd_line(STS_LINE)
    assert epd.points_for(position, chess.Move.from_uci("f4f5")) == 10
    assert epd.points_for(position, chess.Move.from_uci("d4f2")) == 3
    assert epd.points_for(position, chess.Move.from_uci("g1h1")) == 0
    assert epd.points_for(position, None) == 0
    assert epd.is_solved(position, chess.Move.from_uci("f4f5"))
    assert not epd.is_solved(position, chess.Move.from_uci("d4f2"))


def test_themes_group_by_sts_version_tag():
    assert epd.theme_of("STS(v1.0) Undermine.001") == "STS(v1.0) Undermine"
    assert epd.theme_of("ECM.017") == "ECM"
    assert epd.theme_key("STS(v3.0) Knight Outposts/Repositioning/Centralization") == "STS(v3.0)"
    assert epd.theme_key("STS(v3.0) Knight Outposts/Centralization/Repositioning") == "STS(v3.0)"


def test_tally_sums_points_overall_and_per_theme():
    a = epd.parse_epd_line(STS_LINE)
    b = epd.parse_epd_line(STS_LINE.replace("Undermine.001", "Undermine.002"))
    c = epd.parse_epd_line(STS_LINE.replace("STS(v1.0) Undermine.001", "STS(v2.2) Open Files.001"))
    results = [epd.score_position(0, a, chess.Move.from_uci("f4f5")),
               epd.score_position(1, b, chess.Move.from_uci("d4f2")),
               epd.score_position(2, c, None, error="timeout")]
    overall, themes = epd.tally(results)
    assert (overall.positions, overall.solved, overall.points, overall.max_points) == (3, 1, 13, 30)
    assert [(t.name, t.points, t.max_points, t.solved) for t in themes] == [
        ("STS(v1.0) Undermine", 13, 20, 1), ("STS(v2.2) Open Files", 0, 10, 0)]
    text = epd.report(results, "suite")
    assert text.startswith("suite: solved 1/3 (33.3%), points 13/30 (43.3%), engine errors 1")
    assert "STS(v2.2) Open Files" in text


def test_shipped_suites_parse():
    for name, count in (("bratko_kopec_test.epd", 24), ("ECM.epd", 879), ("STS1-STS15_LAN_v3.epd", 1500)):
        positions = epd.load_suite(str(TACTICS / name))
        assert len(positions) == count
    assert all(p.points and max(p.points.values()) == 10 for p in positions)  # the STS file


@needs_stockfish
def test_stockfish_at_depth_one_on_three_bratko_kopec_positions(capsys):
    code = epd.main(["--engine", STOCKFISH, "--depth", "1", "--limit", "3", "--verbose", BRATKO_KOPEC])
    out = capsys.readouterr().out
    assert code == 0
    assert "bratko_kopec_test.epd [Stockfish" in out
    assert "solved" in out and "/3 (" in out
    assert out.count("BK.0") == 3
