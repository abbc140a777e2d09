#!/usr/bin/env bash
# Prints pyenv's newest interpreter of VERSION (3.12, or 3.13t for the free-threaded one), or
# python$VERSION from PATH; nothing (exit 1) when there is none. A default version is never
# taken from a free-threaded directory (3.13.5t), whose bin/ also holds a python3.13.
#   scripts/pyenv-python.sh VERSION
set -uo pipefail
v=$1
if [ "${v%t}" != "$v" ]; then pattern="${v%t}.*t"; else pattern="$v.*[0-9]"; fi
# shellcheck disable=SC2086  # the pattern is a glob
found=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/$pattern/bin/python"$v" 2>/dev/null | sort -V | tail -1)
[ -n "$found" ] || found=$(command -v "python$v" || true)
[ -n "$found" ] && echo "$found"
