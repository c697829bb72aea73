#!/bin/sh
# System packages the project needs on Debian; installs only what is missing, so re-runs are instant.
set -eu
need=""
command -v python3 >/dev/null 2>&1 || need="$need python3"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need="$need python3-venv"
# The sandbox (verify/sandbox/runner.py): bubblewrap, and Debian's own python3 + venv for its world-readable venv.
command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
[ -x /usr/bin/python3 ] || need="$need python3"
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need="$need python3-venv"
# Formal mathematics (verify/coq/checker.py): the Coq proof assistant and its standard library.
command -v coqc >/dev/null 2>&1 || need="$need coq"
# Certificates (certificate/): Node runs circom2, snarkjs and solc-js installed by `npm ci`.
command -v node >/dev/null 2>&1 || need="$need nodejs"
command -v npm >/dev/null 2>&1 || need="$need npm"
# circom's C++ witness generator (certificate/native_witness.py): x86-64 assembly, GMP, nlohmann-json.
# Elsewhere the WASM generator under Node is used instead.
if [ "$(uname -m)" = x86_64 ]; then
    command -v g++ >/dev/null 2>&1 || need="$need g++"
    command -v nasm >/dev/null 2>&1 || need="$need nasm"
    [ -e /usr/include/gmp.h ] || ls /usr/include/*/gmp.h >/dev/null 2>&1 || need="$need libgmp-dev"
    [ -e /usr/include/nlohmann/json.hpp ] || need="$need nlohmann-json3-dev"
fi
# The local model's runtime (llama-cpp-python) builds llama.cpp from source: a C/C++ compiler, CMake, Ninja.
command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v g++ >/dev/null 2>&1 || need="$need g++"
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
# The Rust SDK (sdk-rs/) builds offline with Debian's cargo from Debian's packaged crates, which the
# librust-*-dev packages (and what they depend on) put under /usr/share/cargo/registry.
command -v cargo >/dev/null 2>&1 || need="$need cargo"
for crate in ureq:librust-ureq-dev serde_json:librust-serde-json-dev serde:librust-serde-dev \
             serde_derive:librust-serde-derive-dev url:librust-url-dev; do
    ls -d "/usr/share/cargo/registry/${crate%%:*}"-[0-9]* >/dev/null 2>&1 || need="$need ${crate#*:}"
done
# Service tests (tests/service/servers.py) start their own PostgreSQL and Redis on loopback, so only the
# binaries are needed: no system service is enabled or started here. Debian keeps pg_ctl off PATH.
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || need="$need postgresql"
command -v redis-server >/dev/null 2>&1 || need="$need redis-server"
# What people look at (report/): tests drive Debian's headless Chromium through its WebDriver, and read the
# compliance PDFs back with poppler (pdftotext, pdftoppm).
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v chromedriver >/dev/null 2>&1 || need="$need chromium-driver"
command -v pdftotext >/dev/null 2>&1 || need="$need poppler-utils"
# The compliance PDF (report/fonts.py) embeds DejaVu Sans and DejaVu Sans Mono. Debian 12 ships both in
# fonts-dejavu-core; from Debian 13 on the monospace face is fonts-dejavu-mono, chosen once the lists are read.
dejavu=/usr/share/fonts/truetype/dejavu
[ -e $dejavu/DejaVuSans.ttf ] && [ -e $dejavu/DejaVuSans-BoldOblique.ttf ] || need="$need fonts-dejavu-core"
[ -e $dejavu/DejaVuSansMono.ttf ] && [ -e $dejavu/DejaVuSansMono-Bold.ttf ] || need_mono=1
# tests/test_deploy.py checks the systemd units with systemd-analyze.
command -v systemd-analyze >/dev/null 2>&1 || need="$need systemd"
need=$(printf '%s\n' $need | sort -u | tr '\n' ' ')
if [ -n "${need% }" ] || [ -n "${need_mono:-}" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "missing Debian packages: $need${need_mono:+ fonts-dejavu-mono (or fonts-dejavu-core before Debian 13)}" \
             "(run 'make install' as root or install them with apt-get)" >&2
        exit 1
    fi
    apt-get update -qq
    if [ -n "${need_mono:-}" ]; then
        if apt-cache show fonts-dejavu-mono >/dev/null 2>&1; then need="$need fonts-dejavu-mono"
        else need="$need fonts-dejavu-core"; fi
        need=$(printf '%s\n' $need | sort -u | tr '\n' ' ')
    fi
    echo "installing Debian packages: $need"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
