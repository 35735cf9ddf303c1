"""Tests for scripts/matches/match.py: clock, schedule, statistics, PGN and whole matches."""
import io
import math
import random
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import chess
import chess.pgn
import pytest

from paths import STOCKFISH, needs_stockfish
from scripts.matches import match
from scripts.matches import stats as match_stats

ROOT = Path(__file__).resolve().parents[1]

# A scripted UCI engine whose misbehaviour is chosen by its argument.
FAKE_ENGINE = textwrap.dedent("""
    import sys, time
    import chess
    mode = sys.argv[1]
    board = chess.Board()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            print("id name Fake-" + mode)
            print("uciok")
        elif words[0] == "isready":
            print("readyok")
        elif words[0] == "position":
            board = chess.Board() if words[1] == "startpos" else chess.Board(" ".join(words[2:8]))
            if "moves" in words:
                for m in words[words.index("moves") + 1:]:
                    board.push_uci(m)
        elif words[0] == "go":
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                time.sleep(60)
            if mode == "slow":
                time.sleep(0.3)
            move = {"illegal": "a1a8", "null": "0000", "none": "(none)"}.get(mode)
            print("bestmove " + (move or next(iter(board.legal_moves)).uci()))
        elif words[0] == "quit":
            break
        sys.stdout.flush()
""")


@pytest.fixture
def fake_engine(tmp_path):
    path = tmp_path / "fake_engine.py"
    path.write_text(FAKE_ENGINE)

    def command(mode):
        return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))} {mode}"

    return command


# --- clock -------------------------------------------------------------------

def test_clock_subtracts_elapsed_and_adds_increment():
    remaining, flagged = match.charge_clock(10.0, 1.5, 0.1)
    assert not flagged
    assert remaining == pytest.approx(8.6)


def test_clock_that_goes_negative_flags_and_gets_no_increment():
    remaining, flagged = match.charge_clock(0.5, 0.6, 0.1)
    assert flagged
    assert remaining == pytest.approx(-0.1)


def test_clock_at_exactly_zero_is_still_in_time():
    remaining, flagged = match.charge_clock(1.0, 1.0, 0.0)
    assert not flagged and remaining == 0.0


def test_time_control_parses_base_and_increment():
    assert match.parse_tc("2+0.02") == match.TimeControl(2.0, 0.02)
    assert match.parse_tc("60") == match.TimeControl(60.0, 0.0)
    assert match.parse_tc("2+0.02").pgn() == "2+0.02"


@pytest.mark.parametrize("bad", ["", "x+1", "0+1", "5+-1", "1+2+3"])
def test_time_control_rejects_malformed_text(bad):
    with pytest.raises(ValueError):
        match.parse_tc(bad)


def test_time_forfeit_is_a_draw_when_the_opponent_cannot_mate():
    lone_king = chess.Board("8/8/8/8/8/8/4k3/K6Q w - - 0 1")
    assert match.time_forfeit_winner(lone_king, chess.WHITE) is None
    assert match.time_forfeit_winner(lone_king, chess.BLACK) == chess.WHITE


# --- schedule ----------------------------------------------------------------

def test_each_opening_is_played_once_with_each_colour():
    games = match.schedule_games(8, 4)
    for opening in range(4):
        colours = [g.engine1_white for g in games if g.opening_index == opening]
        assert sorted(colours) == [False, True]


def test_engine1_colour_alternates_game_by_game():
    games = match.schedule_games(6, 10)
    assert [g.engine1_white for g in games] == [True, False] * 3
    assert [g.number for g in games] == [1, 2, 3, 4, 5, 6]


def test_openings_are_in_file_order_without_a_seed_and_wrap_around():
    games = match.schedule_games(8, 3)
    assert [g.opening_index for g in games] == [0, 0, 1, 1, 2, 2, 0, 0]


def test_seeded_opening_order_is_a_reproducible_shuffle():
    first = [g.opening_index for g in match.schedule_games(20, 10, seed=7)]
    assert first == [g.opening_index for g in match.schedule_games(20, 10, seed=7)]
    assert sorted(set(first)) == list(range(10))
    assert first != [g.opening_index for g in match.schedule_games(20, 10)]


def test_openings_load_from_four_field_epd(tmp_path):
    path = tmp_path / "o.epd"
    path.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n\n"
                    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n")
    fens = match.load_openings(str(path))
    assert fens == ["rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", chess.STARTING_FEN]


# --- statistics --------------------------------------------------------------

def test_even_score_is_zero_elo():
    assert match_stats.elo_from_score(0.5) == 0.0
    assert str(match_stats.elo_from_score(0.5)) == "0.0"


def test_three_quarters_score_is_about_191_elo():
    assert match_stats.elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert match_stats.score_from_elo(190.8485) == pytest.approx(0.75, abs=1e-5)


def test_perfect_and_zero_scores_are_infinite_elo():
    assert match_stats.elo_from_score(1.0) == math.inf
    assert match_stats.elo_from_score(0.0) == -math.inf


def test_elo_interval_for_an_even_result():
    # s = 0.5, per-game variance (30 + 40/4)/100 - 0.25 = 0.15, se = sqrt(0.0015);
    # upper score 0.5 + 1.96 se = 0.5759 -> +53.16 Elo.
    est = match_stats.elo_estimate(30, 40, 30)
    assert est.elo == 0.0
    assert est.upper == pytest.approx(53.158, abs=0.01)
    assert est.lower == pytest.approx(-53.158, abs=0.01)
    assert est.margin == pytest.approx(53.158, abs=0.01)


def test_elo_interval_is_asymmetric_for_a_lopsided_result():
    # s = 0.7, variance 0.65 - 0.49 = 0.16, se = 0.04; scores 0.6216 .. 0.7784.
    est = match_stats.elo_estimate(60, 20, 20)
    assert est.elo == pytest.approx(147.19, abs=0.01)
    assert est.lower == pytest.approx(86.23, abs=0.01)
    assert est.upper == pytest.approx(218.25, abs=0.01)


def test_elo_interval_stays_open_when_every_game_was_won():
    # Variance from W/D/L = 2.5/0.5/0.5: 0.75 - (2.75/3.5)^2 = 0.1327, se = sqrt(0.1327/2);
    # lower score 1 - 1.96 se = 0.4952 -> -3.3 Elo.
    est = match_stats.elo_estimate(2, 0, 0)
    assert est.elo == math.inf and est.upper == math.inf
    assert est.lower == pytest.approx(-3.31, abs=0.01)


def test_per_game_variance_of_all_draws_is_zero():
    assert match_stats.per_game_variance(0, 10, 0) == 0.0
    assert match_stats.per_game_variance(1, 0, 1) == pytest.approx(0.25)


def test_likelihood_of_superiority_is_symmetric():
    assert match_stats.likelihood_of_superiority(0, 0) == 0.5
    assert match_stats.likelihood_of_superiority(10, 5) == pytest.approx(1 - match_stats.likelihood_of_superiority(5, 10))
    assert match_stats.likelihood_of_superiority(10, 5) > 0.9


def test_sprt_bounds_for_five_percent_errors():
    lower, upper = match_stats.sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=1e-3)
    assert upper == pytest.approx(2.944, abs=1e-3)


def test_sprt_llr_matches_the_hand_computed_value():
    # s = 0.7, var = 0.16, s0 = 0.5, s1 = 0.507195:
    # 100 * 0.007195 * (1.4 - 1.007195) / 0.32 = 0.8832
    assert match_stats.sprt_llr(60, 20, 20, 0, 5) == pytest.approx(0.8832, abs=1e-3)


def test_sprt_llr_sign_follows_the_score():
    assert match_stats.sprt_llr(40, 20, 40, 0, 10) < 0  # 50% is closer to elo0
    assert match_stats.sprt_llr(55, 20, 25, 0, 10) > 0
    assert match_stats.sprt_llr(0, 0, 0, 0, 10) == 0.0


def test_sprt_llr_is_finite_when_a_result_kind_is_missing():
    # All wins: half a game is added to W, D and L before the variance is taken.
    assert match_stats.sprt_llr(10, 0, 0, 0, 10) == pytest.approx(1.4122, abs=1e-3)
    assert math.isfinite(match_stats.sprt_llr(0, 10, 0, 0, 10))


def test_sprt_decides_once_a_bound_is_crossed():
    bounds = match_stats.sprt_bounds()
    assert match_stats.sprt_decision(match_stats.sprt_llr(600, 200, 200, 0, 10), bounds) == "H1"
    assert match_stats.sprt_decision(match_stats.sprt_llr(200, 200, 600, 0, 10), bounds) == "H0"
    assert match_stats.sprt_decision(match_stats.sprt_llr(6, 2, 2, 0, 10), bounds) is None


# --- results and PGN ---------------------------------------------------------

def test_sprt_verdict_is_the_one_taken_when_a_bound_was_crossed():
    # With two games in flight, the test stops at a crossing and then counts the other game, which
    # may take the LLR back inside the bounds: the verdict stays the one that stopped it.
    llr = match_stats.sprt_llr(176, 174, 123, 0, 15)
    assert match_stats.sprt_decision(llr, match_stats.sprt_bounds()) == "H1"
    assert match_stats.sprt_decision(match_stats.sprt_llr(176, 174, 124, 0, 15),
                                     match_stats.sprt_bounds()) is None
    tally = match.Tally(wins=176, draws=174, losses=124, sprt_verdict=("H1", 473, llr))
    text = match.summary(tally, ("a", "b"), (0, 15))
    assert "H1 accepted (elo >= 15) at game 473" in text


def test_result_strings():
    assert match.result_string(chess.WHITE) == "1-0"
    assert match.result_string(chess.BLACK) == "0-1"
    assert match.result_string(None) == "1/2-1/2"


def test_rules_termination_recognises_mate_stalemate_and_material():
    mate = chess.Board("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3")
    assert match.rules_termination(mate) == (chess.BLACK, "checkmate")
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert match.rules_termination(stalemate) == (None, "stalemate")
    assert match.rules_termination(chess.Board("8/8/8/8/8/8/4k3/K7 w - - 0 1")) == (None, "insufficient material")
    assert match.rules_termination(chess.Board()) is None


def test_fifty_moves_end_the_game_but_mate_on_the_hundredth_ply_wins():
    assert match.rules_termination(chess.Board("8/8/8/8/8/4k3/8/K6R w - - 100 80")) == (None, "fifty-move rule")
    assert match.rules_termination(chess.Board("8/8/8/8/8/4k3/8/K6R w - - 99 80")) is None
    mated = chess.Board("R5k1/5ppp/8/8/8/8/8/K7 b - - 100 80")
    assert match.rules_termination(mated) == (chess.WHITE, "checkmate")


def test_threefold_repetition_ends_the_game_only_when_it_happened():
    board = chess.Board()
    for _ in range(2):
        for uci in ("g1f3", "g8f6", "f3g1", "f6g8"):
            board.push_uci(uci)
    assert match.rules_termination(board) == (None, "threefold repetition")
    board.pop()  # a repetition that is merely available is not an ending
    assert match.rules_termination(board) is None


def _record(termination, winner, culprit=None, engine1_white=True):
    board = chess.Board()
    board.push_uci("e2e4")
    return match.GameRecord(match.ScheduledGame(3, 0, engine1_white), chess.STARTING_FEN, "A", "B",
                            list(board.move_stack), ["+0.20/5 0.100s"], winner, termination, "detail text", culprit)


def test_pgn_carries_result_termination_and_time_control():
    record = _record(match.TIME_FORFEIT, chess.WHITE, culprit=chess.BLACK)
    game = match.game_to_pgn(record, "Test event", "2+0.02")
    text = str(game)
    assert game.headers["Result"] == "1-0"
    assert game.headers["Termination"] == "time forfeit"
    assert game.headers["TimeControl"] == "2+0.02"
    assert game.headers["Round"] == "3"
    assert game.headers["Event"] == "Test event"
    assert "detail text" in text
    assert "FEN" not in game.headers  # the standard start needs no SetUp


def test_pgn_from_an_opening_position_has_fen_and_setup():
    record = match.GameRecord(match.ScheduledGame(1, 0, True), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "A", "B",
                              [], [], chess.BLACK, match.ILLEGAL_MOVE, "White played illegal move a1a8", chess.WHITE)
    game = match.game_to_pgn(record, "E", "-")
    assert game.headers["FEN"] == "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    assert game.headers["SetUp"] == "1"
    assert game.headers["Result"] == "0-1"
    assert game.headers["Termination"] == "illegal move"
    reread = chess.pgn.read_game(io.StringIO(str(game)))
    assert reread.headers["Termination"] == "illegal move"


def test_tally_counts_from_engine1_view_and_blames_the_culprit():
    tally = match.Tally()
    tally.add(_record(match.TIME_FORFEIT, chess.WHITE, culprit=chess.BLACK, engine1_white=True))
    tally.add(_record(match.ILLEGAL_MOVE, chess.WHITE, culprit=chess.BLACK, engine1_white=False))
    tally.add(_record(match.REPETITION, None))
    tally.add(_record(match.HANG, chess.BLACK, culprit=chess.WHITE, engine1_white=True))
    assert (tally.wins, tally.draws, tally.losses) == (1, 1, 2)
    assert tally.engines[1].time_forfeits == 1
    assert tally.engines[0].illegal_moves == 1
    assert tally.engines[0].crashes == 1


def test_games_from_pgn_are_this_matchs_games_from_engine1s_view(tmp_path):
    path = tmp_path / "m.pgn"
    records = [_record(match.CHECKMATE, chess.WHITE, engine1_white=True),
               _record(match.REPETITION, None, engine1_white=False),
               _record(match.TIME_FORFEIT, chess.BLACK, culprit=chess.WHITE, engine1_white=False)]
    drawn_forfeit = _record(match.TIME_FORFEIT, None, culprit=chess.BLACK, engine1_white=True)
    drawn_forfeit.detail = "Black loses on time (-0.010 s)"
    records.append(drawn_forfeit)
    with open(path, "w") as f:
        for number, record in enumerate(records, 1):
            record.scheduled = match.ScheduledGame(number, 0, record.scheduled.engine1_white)
            record.white, record.black = ("A", "B") if record.scheduled.engine1_white else ("B", "A")
            print(match.game_to_pgn(record, "Test event", "2+0.02"), file=f, end="\n\n")
        print(match.game_to_pgn(_record(match.CHECKMATE, chess.WHITE), "Other event", "2+0.02"), file=f, end="\n\n")
        print(match.game_to_pgn(_record(match.CHECKMATE, chess.WHITE), "Test event", "10+0.1"), file=f, end="\n\n")
    done = match.games_from_pgn(str(path), ("A", "B"), "Test event", "2+0.02")
    assert [record.scheduled.number for record in done] == [1, 2, 3, 4]
    tally = match.Tally()
    for record in done:
        tally.add(record)
    assert (tally.wins, tally.draws, tally.losses) == (2, 2, 0)
    assert tally.engines[1].time_forfeits == 2 and tally.engines[0].time_forfeits == 0


def test_resumed_match_plays_only_the_rest_of_its_schedule(fake_engine, capsys, tmp_path):
    pgn = tmp_path / "m.pgn"
    epd = tmp_path / "openings.epd"
    openings = []
    for first_move in ("e2e4", "d2d4", "c2c4", "g1f3"):
        board = chess.Board()
        board.push_uci(first_move)
        openings.append(board.epd())
    epd.write_text("\n".join(openings) + "\n")
    first = ["--engine1", fake_engine("first"), "--engine2", fake_engine("first"), "--depth", "1",
             "--seed", "5", "--openings", str(epd), "--pgn", str(pgn), "--quiet"]
    code, out, _ = _run(first + ["--games", "2"], capsys)
    assert code == 0 and ": 2 games" in out
    code, out, _ = _run(first + ["--games", "5", "--resume"], capsys)
    assert code == 0 and ": 5 games" in out
    with open(pgn) as f:
        games = iter(lambda: chess.pgn.read_game(f), None)
        played = [(int(game.headers["Round"]), game.headers["FEN"]) for game in games]
    assert sorted(number for number, _ in played) == [1, 2, 3, 4, 5]
    openings = match.load_openings(str(epd))
    schedule = match.schedule_games(5, len(openings), 5)
    assert sorted(played) == [(game.number, openings[game.opening_index]) for game in schedule]


def test_usage_errors_exit_non_zero(capsys):
    with pytest.raises(SystemExit) as exc:
        match.main(["--engine1", "a", "--engine2", "b"])  # no time control
    assert exc.value.code != 0
    with pytest.raises(SystemExit) as exc:
        match.main(["--engine1", "a", "--engine2", "b", "--depth", "1", "--option1", "Hash"])
    assert exc.value.code != 0
    with pytest.raises(SystemExit) as exc:
        match.main(["--engine1", "a", "--engine2", "b", "--depth", "1", "--resume"])  # no --pgn to resume from
    assert exc.value.code != 0


# --- whole matches -----------------------------------------------------------

def _run(argv, capsys):
    code = match.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@needs_stockfish
def test_two_game_stockfish_match_writes_pgn_and_summary(tmp_path, capsys):
    pgn = tmp_path / "m.pgn"
    code, out, err = _run(["--engine1", STOCKFISH, "--engine2", STOCKFISH, "--name1", "One", "--name2", "Two",
                           "--nodes", "100", "--games", "2", "--pgn", str(pgn)], capsys)
    assert code == 0
    assert "One vs Two: 2 games" in out
    assert "[2/2]" in err
    with open(pgn) as f:
        games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
    assert {g.headers["White"] for g in games} == {"One", "Two"}
    for game in games:
        assert game.headers["Result"] in ("1-0", "0-1", "1/2-1/2")
        assert game.headers["Termination"]
        board = game.end().board()
        outcome = match.rules_termination(board)
        assert outcome is not None and match.result_string(outcome[0]) == game.headers["Result"]


@needs_stockfish
def test_illegal_move_loses_and_is_counted(fake_engine, capsys, tmp_path):
    pgn = tmp_path / "m.pgn"
    code, out, _ = _run(["--engine1", fake_engine("illegal"), "--engine2", STOCKFISH, "--depth", "1",
                         "--games", "2", "--pgn", str(pgn)], capsys)
    assert code == 0
    assert "W/D/L 0/0/2" in out
    assert "illegal moves 2" in out
    assert pgn.read_text().count('[Termination "illegal move"]') == 2


@pytest.mark.parametrize("mode", ["null", "none"])
def test_null_or_missing_bestmove_counts_as_illegal(fake_engine, capsys, mode):
    code, out, _ = _run(["--engine1", fake_engine(mode), "--engine2", fake_engine("first"), "--depth", "1",
                         "--games", "1", "--quiet"], capsys)
    assert code == 0
    assert "W/D/L 0/0/1" in out and "illegal moves 1" in out


def test_crashing_engine_loses_and_is_restarted_for_the_next_game(fake_engine, capsys):
    code, out, _ = _run(["--engine1", fake_engine("crash"), "--engine2", fake_engine("first"), "--depth", "1",
                         "--games", "2", "--quiet"], capsys)
    assert code == 0
    assert "W/D/L 0/0/2" in out
    assert "crashes 2" in out


def test_hung_engine_is_killed_and_loses(fake_engine, capsys):
    code, out, _ = _run(["--engine1", fake_engine("first"), "--engine2", fake_engine("hang"), "--tc", "0.2+0",
                         "--hang-margin", "0.3", "--games", "1", "--quiet"], capsys)
    assert code == 0
    assert "W/D/L 1/0/0" in out
    assert "engine hang 1" in out


def test_slow_engine_loses_on_time(fake_engine, capsys):
    code, out, _ = _run(["--engine1", fake_engine("slow"), "--engine2", fake_engine("first"), "--tc", "0.5+0",
                         "--games", "1", "--quiet"], capsys)
    assert code == 0
    assert "W/D/L 0/0/1" in out
    assert "time forfeit 1" in out
    assert "time forfeits 1, illegal moves 0, crashes 0" in out


def test_engine_that_cannot_start_is_an_error_not_a_result(capsys):
    code = match.main(["--engine1", "/nonexistent/engine", "--engine2", "/nonexistent/other", "--depth", "1"])
    assert code not in (0, 2)
    assert "cannot run" in capsys.readouterr().err


def test_chess960_openings_are_the_960_start_positions():
    openings = match.chess960_openings()
    assert len(set(openings)) == 960
    assert openings[518] == chess.Board().fen(shredder=True)  # 518: the standard start position


@needs_stockfish
def test_chess960_match_plays_legal_games_from_960_start_positions(tmp_path, capsys):
    pgn = tmp_path / "m.pgn"
    brudno = f"{sys.executable} -m engine"
    code, out, _ = _run(["--engine1", brudno, "--engine2", STOCKFISH, "--chess960", "--seed", "3",
                         "--nodes", "300", "--max-moves", "30", "--games", "2", "--pgn", str(pgn)], capsys)
    assert code == 0
    assert "illegal moves 0" in out and "illegal moves 1" not in out
    with open(pgn) as f:
        games = [chess.pgn.read_game(f), chess.pgn.read_game(f)]
    for game in games:
        assert game.headers["Variant"] == "Chess960"
        assert game.board().chess960 and game.board().fen() != chess.STARTING_FEN
        assert game.headers["Termination"] != match.ILLEGAL_MOVE


def simulated_sprt(true_elo: float, elo0: float, elo1: float, rng: random.Random,
                   draw_ratio: float = 0.3, max_games: int = 20_000) -> tuple[str | None, int]:
    """Plays games of an engine `true_elo` stronger, one at a time, until the SPRT decides."""
    score = match_stats.score_from_elo(true_elo)
    win = score - draw_ratio / 2  # P(win) + P(draw) / 2 = score
    bounds = match_stats.sprt_bounds()
    wins = draws = losses = 0
    for games in range(1, max_games + 1):
        roll = rng.random()
        if roll < win:
            wins += 1
        elif roll < win + draw_ratio:
            draws += 1
        else:
            losses += 1
        decision = match_stats.sprt_decision(match_stats.sprt_llr(wins, draws, losses, elo0, elo1),
                                             bounds)
        if decision:
            return decision, games
    return None, max_games


def test_sprt_on_simulated_matches_accepts_the_true_hypothesis_about_95_percent_of_the_time():
    rng = random.Random(2026)
    strong = [simulated_sprt(10, 0, 10, rng)[0] for _ in range(100)]  # true Elo at elo1
    weak = [simulated_sprt(0, 0, 10, rng)[0] for _ in range(100)]  # true Elo at elo0
    # alpha = beta = 0.05: about 5 wrong decisions in 100 each; 13 or more would be very unlikely.
    assert strong.count("H1") >= 87
    assert weak.count("H0") >= 87


def test_sprt_stops_sooner_the_clearer_the_difference():
    rng = random.Random(7)
    clear = sorted(simulated_sprt(60, 0, 10, rng)[1] for _ in range(30))
    close = sorted(simulated_sprt(10, 0, 10, rng)[1] for _ in range(30))
    assert clear[15] * 5 < close[15]  # medians


def test_a_match_started_in_the_background_stops_on_sigint_with_its_results(fake_engine):
    # A shell starts a background job (`&`, nohup) with SIGINT ignored, as here.
    command = [sys.executable, "-m", "scripts.matches.match", "--engine1", fake_engine("slow"),
               "--engine2", fake_engine("slow"), "--movetime", "0.01", "--games", "4"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    time.sleep(3)  # the engines have started and the first game is under way
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert "interrupted; results so far" in err
    assert "games, W/D/L" in out
