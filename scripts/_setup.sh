# Shared by scripts/brudno and scripts/test: create .venv on first use and keep it current.
# Sourced, not run. All set-up output goes to stderr so that the engine's stdout stays pure UCI.

BRUDNO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BRUDNO_VENV="$BRUDNO_ROOT/.venv"
BRUDNO_PY="$BRUDNO_VENV/bin/python"

# The set-up lock is a symbolic link whose target is the holder's pid: making a link is atomic on
# every system and names its holder at once, where flock(1) is missing on macOS. A link left by a
# set-up that was killed midway names a process that is gone, and the next set-up removes it.
brudno_lock() {
    local lock="$1"
    until ln -s "$$" "$lock" 2>/dev/null; do
        brudno_break_stale_lock "$lock"
        sleep 0.1
    done
}

brudno_unlock() {
    rm -f "$1"
}

brudno_break_stale_lock() {
    local lock="$1" holder
    holder="$(readlink "$lock" 2>/dev/null)" || return 0
    [[ -n "$holder" ]] && ! kill -0 "$holder" 2>/dev/null || return 0
    # Only one waiter removes it: another that saw the same dead holder could otherwise remove the
    # lock the first one has just taken.
    ln -s "$$" "$lock.break" 2>/dev/null || return 0
    [[ "$(readlink "$lock" 2>/dev/null)" == "$holder" ]] && rm -f "$lock"
    rm -f "$lock.break"
}

brudno_setup() {
    local stamp="$BRUDNO_VENV/.brudno-installed"
    if [[ -f "$stamp" && ! "$BRUDNO_ROOT/pyproject.toml" -nt "$stamp" ]]; then
        return 0
    fi
    # A match runner may start two copies at once right after cloning: the second waits here.
    mkdir -p "$BRUDNO_ROOT/.venv-lock.d"
    local lock="$BRUDNO_ROOT/.venv-lock.d/holder"
    brudno_lock "$lock"
    if [[ ! -f "$stamp" || "$BRUDNO_ROOT/pyproject.toml" -nt "$stamp" ]]; then
        echo "brudno: setting up $BRUDNO_VENV (first run only)..." >&2
        local python="${PYTHON:-python3}"
        [[ -x "$BRUDNO_PY" ]] || "$python" -m venv "$BRUDNO_VENV" >&2
        "$BRUDNO_PY" -m pip install --quiet --upgrade pip >&2 || true
        "$BRUDNO_PY" -m pip install --quiet -e "$BRUDNO_ROOT[test,plot]" >&2
        echo "brudno: compiling the evaluation (cached on disk)..." >&2
        "$BRUDNO_PY" -m engine warmup >&2
        touch "$stamp"
    fi
    brudno_unlock "$lock"
}
