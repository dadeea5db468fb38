# Trick Arena — the two commands a user needs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint openapi bench clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || ($(PYTHON) -m pip install --user virtualenv && $(PYTHON) -m virtualenv $(VENV))
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(PY) -m harness.cli run $(ARGS)

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(PY) -m ruff check games api harness bots tests bench
	$(PY) -m mypy

openapi: $(STAMP)
	$(PY) -m api.openapi_gen openapi.yaml

bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) bench/engine_bench.py

clean:
	rm -rf $(VENV) var .pytest_cache
