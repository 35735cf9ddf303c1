"""The console entry point: no arguments speaks UCI; subcommands run bench, perft, warm-up, the
page (serve) and print OpenBench's SPSA inputs; other arguments are UCI commands, run in order
before the UCI loop reads stdin (as C engines take `"genfens 8 seed 1 book None" quit`)."""

from __future__ import annotations

import argparse
import sys

import chess

SUBCOMMANDS = ("bench", "perft", "warmup", "serve", "spsa-inputs", "-h", "--help")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in SUBCOMMANDS:
        from engine.protocol.uci import main as uci_main

        return uci_main(commands=argv)

    parser = argparse.ArgumentParser(prog="brudno", description="Brudno, a UCI chess engine. "
                                     "Without arguments it speaks UCI on stdin/stdout.")
    commands = parser.add_subparsers(dest="command", required=True)
    bench = commands.add_parser("bench", help="search the bench positions to a fixed depth")
    bench.add_argument("depth", type=int, nargs="?", default=None)
    perft = commands.add_parser("perft", help="count the leaves of the move tree (divide)")
    perft.add_argument("depth", type=int)
    perft.add_argument("fen", nargs="*", help="a FEN (default: the start position)")
    perft.add_argument("--chess960", action="store_true",
                       help="Chess960 rules: X-FEN or Shredder-FEN castling, king-takes-rook moves")
    commands.add_parser("warmup", help="compile the evaluation into numba's on-disk cache")
    serve = commands.add_parser("serve", help="a page on 127.0.0.1 to play Brudno, watch it "
                                "search and see alpha-beta prune (docs/page.md)")
    serve.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    serve.add_argument("--no-browser", action="store_true", help="do not open a browser")
    commands.add_parser("spsa-inputs", help="OpenBench's SPSA input lines of the tuned "
                        "parameters (the options of the tuning build: engine/protocol/tuning.py)")
    args = parser.parse_args(argv)

    if args.command == "bench":
        from engine.protocol.bench import run_bench

        run_bench(depth=args.depth)
    elif args.command == "perft":
        from engine.board.perft import perft_report

        fen = " ".join(args.fen) if args.fen else chess.STARTING_FEN
        try:
            board = chess.Board(fen, chess960=args.chess960)
        except ValueError as error:
            parser.error(f"invalid FEN: {error}")
        print(perft_report(board, args.depth), end="")
    elif args.command == "warmup":
        from engine.search.root import fixed_depth_search  # importing the search compiles its kernels

        fixed_depth_search(chess.Board(), 2)
    elif args.command == "spsa-inputs":
        from engine.protocol.tuning import spsa_inputs

        print("\n".join(spsa_inputs()))
    elif args.command == "serve":
        from engine.teaching.web.server import serve

        return serve(port=args.port, open_browser=not args.no_browser)
    return 0
