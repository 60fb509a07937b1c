#!/usr/bin/env bash
# chuanma developer entry point: sets up .venv (idempotent) and runs a job.
#   bash dev.sh main    set up, compile the engine (the first time only), then the main job: train a small self-play
#                       policy on the default variant (hongzhong) and evaluate it against the baselines (about 10
#                       minutes on 2 CPU cores)
#   bash dev.sh test    set up, then lint (ruff), check the import layers (lint-imports), type-check (mypy) and run
#                       the test suite with its doctests (what CI runs)
#   bash dev.sh setup   set up only (with the browser the tests use)
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3

setup() {
    if [ ! -x .venv/bin/python ]; then
        "$PY" -m venv .venv
    fi
    local stamp=.venv/.chuanma-installed
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        .venv/bin/python -m pip install -q --upgrade pip
        # torch is pinned explicitly: the CPU build; any other resolution pulls a multi-GB CUDA build.
        .venv/bin/python -m pip install -q "torch==2.13.0"
        .venv/bin/python -m pip install -q -e ".[test]"
        touch "$stamp"
    fi
}

# The browser tests (tests/web) drive Debian's Chromium through Playwright (Playwright's own browser download is not
# used); a CJK font draws the page's tile characters in screenshots.  Installed only when missing (root: apt-get;
# otherwise through sudo when it is there).
browser() {
    if command -v chromium >/dev/null 2>&1 && fc-list :lang=zh 2>/dev/null | grep -q .; then
        return
    fi
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "dev.sh: chromium (or a CJK font) is missing; install: apt-get install chromium fonts-wqy-microhei" >&2
            return
        fi
        sudo=sudo
    fi
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-wqy-microhei >/dev/null
}

case "${1:-}" in
    setup)
        setup
        browser
        ;;
    main)
        setup
        shift
        # the main job compiles the numba engine and agents before its clock starts (minutes of one core the first
        # time; a later run loads them from numba's on-disk cache in seconds), so its ten minutes go to training
        .venv/bin/chuanma main "$@"
        ;;
    test)
        setup
        browser
        shift
        # numba compiles the engine once, here, while the linters run; the two test workers then load it from the
        # cache instead of each compiling the same functions at once
        .venv/bin/chuanma compile >.venv/compile.log 2>&1 &
        compiling=$!
        .venv/bin/ruff check .
        .venv/bin/ruff format --check .
        .venv/bin/lint-imports  # the layering contract of pyproject.toml [tool.importlinter]
        .venv/bin/mypy
        wait "$compiling" || { cat .venv/compile.log >&2; exit 1; }
        cat .venv/compile.log
        # --dist loadgroup: the tests of one xdist_group (the Ray tests) share a worker, and so one Ray instance
        .venv/bin/python -m pytest -n 2 --dist loadgroup -q --durations=30 "$@"
        ;;
    *)
        echo "usage: bash dev.sh {main|test|setup} [extra args]" >&2
        exit 2
        ;;
esac
