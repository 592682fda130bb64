#!/usr/bin/env bash
# Builds the Python package (python/) and runs its tests (python/tests) in a virtual
# environment of its own, target/python-venv (created if missing; PyPI must be reachable the
# first time): maturin, pytest, pyarrow, pandas, polars, tqdm; then `pip install ./python`
# (a release build of the native module) and pytest. The tests compare with the command line
# target/debug/anonbox, built by `cargo build` if missing.
#
#   scripts/test_python.sh            # everything
#   scripts/test_python.sh -k audit   # pytest's arguments
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
python=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
    mkdir -p target
    if ! "$python" -m venv "$venv" 2>/dev/null; then
        rm -rf "$venv"
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
            # Debian's python3 without ensurepip: its python3-venv package.
            apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
            "$python" -m venv "$venv"
        else
            "$python" -m pip install --user --quiet virtualenv
            "$python" -m virtualenv --quiet "$venv"
        fi
    fi
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "maturin>=1.5,<2" pytest pyarrow pandas polars tqdm
[ -x target/debug/anonbox ] || cargo build --quiet
start=$(date +%s)
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps ./python
echo "scripts/test_python.sh: built and installed the package in $(( $(date +%s) - start )) s"
# From the repository's root with pytest's own script: `python -m pytest` in python/ would put
# the source folder first on sys.path, whose package has no built native module (neither has a
# child `python -c` started there), so the tests would import it instead of the installed one.
exec "$venv/bin/pytest" -q python/tests "$@"
