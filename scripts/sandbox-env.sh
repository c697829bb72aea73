#!/bin/sh
# Builds the sandbox's Python environment: a venv on Debian's /usr/bin/python3 in a world-readable
# place, because the sandbox runs as an unprivileged uid that cannot read root's home (where the
# default interpreter may live). Idempotent: instant when the stamp exists.
set -eu
VENV=${1:-.sandbox-venv}
BASE=/usr/bin/python3
STAMP="$VENV/.installed"
# What the verifier runs inside the sandbox: tests, properties, coverage, types (quick), contracts (formal).
REQS="pytest>=8 hypothesis>=6.100 coverage>=7 mypy>=1.10 crosshair-tool>=0.0.70"
# The unprivileged sandbox user must be able to traverse every directory above the venv. When the
# repository sits where it cannot (under root's home, say), build the venv in /opt and link it here.
if [ "$(id -u)" = 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$(pwd)" 2>/dev/null; then
    REAL=/opt/reasonforge/sandbox-venv
    mkdir -p /opt/reasonforge && chmod 755 /opt/reasonforge
    [ -L "$VENV" ] || rm -rf "$VENV"
    ln -sfn "$REAL" "$VENV"
    VENV=$REAL
    STAMP="$VENV/.installed"
fi
# The stamp records the requirements, so changing them here rebuilds.
[ -x "$VENV/bin/python" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$REQS" ] && exit 0
umask 022
[ -x "$VENV/bin/python" ] || "$BASE" -m venv "$VENV"
# pip's chatter goes to a log shown only on failure, so `make install` stays quiet.
log=$(mktemp)
if ! "$VENV/bin/python" -m pip install -q --disable-pip-version-check $REQS >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"; exit 1
fi
rm -f "$log"
chmod -R a+rX "$VENV"
echo "$REQS" >"$STAMP"
