# Shared by scripts/brudno and scripts/test: create .venv on first use and keep it current.
# Sourced, not run. All set-up output goes to stderr so that the engine's stdout stays pure UCI.

BRUDNO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BRUDNO_VENV="$BRUDNO_ROOT/.venv"
BRUDNO_PY="$BRUDNO_VENV/bin/python"

brudno_setup() {
    local stamp="$BRUDNO_VENV/.brudno-installed"
    if [[ -f "$stamp" && ! "$BRUDNO_ROOT/pyproject.toml" -nt "$stamp" ]]; then
        return 0
    fi
    # A match runner may start two copies at once right after cloning: the second waits here.
    mkdir -p "$BRUDNO_ROOT/.venv-lock.d"
    exec 9>"$BRUDNO_ROOT/.venv-lock.d/lock"
    flock 9
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
    flock -u 9
    exec 9>&-
}
