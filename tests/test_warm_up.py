"""Every numba kernel is compiled (or loaded from cache) before the engine answers `readyok`,
so that no search, the first one included, pays for it on the clock."""

from __future__ import annotations

from engine import evaluate, movepick, see, tt_kernels, zobrist
from engine.engine import Engine


class _Silent:
    def on_info(self, info) -> None: ...

    def on_bestmove(self, move, ponder) -> None: ...

    def on_message(self, text: str) -> None:
        raise AssertionError(f"unexpected message: {text}")


def test_the_engine_compiles_every_kernel_before_it_is_ready() -> None:
    Engine(_Silent()).wait_ready()
    # Each module calls its kernel through a name that is rebound to the compiled dispatcher.
    assert evaluate._kernel is evaluate._evaluate_kernel
    assert movepick._capture_kernel is movepick._capture_kernel_impl
    assert movepick._quiet_kernel is movepick._quiet_kernel_impl
    assert zobrist._kernel is zobrist._key_kernel
    assert see._kernel is see._see_kernel
    assert tt_kernels.probe_kernel is tt_kernels._probe_impl
    assert tt_kernels.store_kernel is tt_kernels._store_impl
