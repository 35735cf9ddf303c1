"""Every numba kernel is compiled (or loaded from cache) before the engine answers `readyok`,
so that no search, the first one included, pays for it on the clock."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap


def test_no_kernel_is_compiled_during_a_search_once_the_engine_is_ready() -> None:
    # A fresh process; a kernel compiled (or loaded from numba's cache) on first use during the
    # search would gain its signature there.
    script = textwrap.dedent("""
        import json
        import sys
        import chess
        from numba.core.registry import CPUDispatcher
        from engine.protocol.engine import Engine
        from engine.search.timeman import Limits

        class Silent:
            def on_info(self, info): pass
            def on_bestmove(self, move, ponder): pass
            def on_message(self, text): raise AssertionError(text)

        def compiled():
            return {(name, attr): len(value.signatures)
                    for name, module in list(sys.modules.items()) if name.startswith("engine")
                    for attr, value in vars(module).items() if isinstance(value, CPUDispatcher)}

        engine = Engine(Silent())
        engine.wait_ready()
        before = compiled()
        board = chess.Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
        engine._search.run(board, Limits(depth=4))
        engine._search.static_evaluation(board)
        after = compiled()
        print(json.dumps({"kernels": sum(before.values()),
                          "compiled during the search": [name for name in after
                                                         if after[name] != before.get(name, 0)]}))
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["kernels"] >= 9  # evaluation, its report, captures, quiets, legality, key, SEE, TT x2
    assert report["compiled during the search"] == []


def test_the_uci_layer_answers_before_numba_is_imported() -> None:
    script = "import sys, engine.protocol.uci; print('numba' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "False"
