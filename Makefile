# chambers: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install install-dev install-train tesseract poppler iproute xray demo demo-train test check bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# cmake builds the bundled llama-server; where the system has none, the PyPI wheel brings one.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	command -v cmake >/dev/null || $(BIN)/pip install --quiet cmake
	touch $@

# [train] brings torch (CPU build, ~200 MB) for the LoRA tests; `make demo` installs without it.
$(VENV)/.installed-dev: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[dev,train]'
	touch $@

# [train] alone (torch CPU build, transformers, peft, gguf): what `chambers train` needs, without the dev tools.
$(VENV)/.installed-train: $(VENV)/.installed
	$(BIN)/pip install --quiet -e '.[train]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev
install-train: $(VENV)/.installed-train

# OCR of scanned pages: PyMuPDF carries the engine, Debian's packages the English data. Needs root (CI is root).
tesseract:
	command -v tesseract >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tesseract-ocr tesseract-ocr-eng)

# pdftotext (poppler) re-reads every redacted file as a second, independent extractor: the leak check.
poppler:
	command -v pdftotext >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y poppler-utils)

# `ip` sets up the empty network namespace of tests/test_policy_namespace.py (unshare is util-linux, always
# there); `openssl` makes the certificate of the endpoint layer's TLS test (tests/test_endpoint.py).
iproute:
	(command -v ip && command -v openssl) >/dev/null || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y iproute2 openssl)

# Free Law Project's x-ray, the third reader of redacted files (it finds text left under black boxes). It pins
# PyMuPDF 1.24.14, which chambers' PyMuPDF (>=1.28.2, for its redaction fixes) excludes, so it cannot be a dev
# extra: it gets its own virtualenv, cached like llama-server, and reads with that older MuPDF.
XRAY_VENV := $(HOME)/.cache/chambers/x-ray-0.4.0
xray:
	test -x $(XRAY_VENV)/bin/python || ($(PYTHON) -m venv $(XRAY_VENV) && $(XRAY_VENV)/bin/pip install --quiet 'x-ray==0.4.0')

# A real llama-server (built once, then cached) with the tiny demo model.
demo: install tesseract poppler
	CHAMBERS_HOME=$(CURDIR)/.demo $(BIN)/chambers demo

# The demo with the [train] extra, so the whole loop runs from it: accept, train (F5 then t), serve, eval.
demo-train: install-train tesseract poppler
	CHAMBERS_HOME=$(CURDIR)/.demo $(BIN)/chambers demo

# Builds or finds the real llama-server first, so its (one-time, ~10 min) build
# shows its progress here rather than inside a test fixture.
test: install-dev tesseract poppler iproute xray
	$(BIN)/chambers local-server prepare
	$(BIN)/pytest

check: install-dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: install-dev poppler
	$(BIN)/chambers local-server prepare
	$(BIN)/python -m benchmarks.stream_overhead
	$(BIN)/python -m benchmarks.dashboard_poll
	$(BIN)/python -m benchmarks.ingest
	$(BIN)/python -m benchmarks.exhibits
	$(BIN)/python -m benchmarks.corrections
	$(BIN)/python -m benchmarks.verify
	$(BIN)/python -m benchmarks.verify_quality
	$(BIN)/python -m benchmarks.pipeline_overhead
	$(BIN)/python -m benchmarks.tui_stream
	$(BIN)/python -m benchmarks.verify_loop_lag
	$(BIN)/python -m benchmarks.train
	$(BIN)/python -m benchmarks.structured_output
	$(BIN)/python -m benchmarks.agree
	$(BIN)/python -m benchmarks.pipeline_loop_lag
	$(BIN)/python -m benchmarks.finish_stall

clean:
	rm -rf $(VENV) .demo .pytest_cache .mypy_cache .ruff_cache
