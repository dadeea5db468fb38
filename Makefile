# Trick Arena — the two commands a user needs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
NODE     := /usr/bin/node
NGINX    := /usr/sbin/nginx
# The contract tests' Node packages (tests/contract: openapi-typescript, openapi-fetch, tsc, Ajv,
# Redocly, Spectral), pinned by its package-lock.json.
CONTRACT_NODE := tests/contract/node_modules/.package-lock.json
# Every tool a test needs, installed by `make test` itself (tests/ops/test_makefile.py checks that
# each installer target below is listed here).
TOOLS := $(CHROMIUM) $(NODE) $(NGINX) $(CONTRACT_NODE)

.PHONY: run test test-fast lint lock openapi bench clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || ($(PYTHON) -m pip install --user virtualenv && $(PYTHON) -m virtualenv $(VENV))
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	@touch $(STAMP)

# Re-resolve the newest versions pyproject.toml allows and pin them (then run `make test`).
lock:
	rm -rf $(VENV)-lock && $(PYTHON) -m venv $(VENV)-lock
	$(VENV)-lock/bin/python -m pip install --quiet --upgrade pip
	$(VENV)-lock/bin/python -m pip install --quiet -e '.[test]'
	{ sed -n '1,3p' constraints.txt; $(VENV)-lock/bin/python -m pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt && rm -rf $(VENV)-lock

run: $(STAMP)
	$(PY) -m harness.cli run $(ARGS)

# The checks first (style, types, the import contract), then the whole suite.
test: lint $(TOOLS)
	$(PY) -m pytest $(PYTEST_ARGS)

# Quick feedback: the checks and the unit tests (no browser, no worker processes, not the golden
# oracle's thousands of replayed games: `make test` runs those), on two pytest-xdist workers
# (every test has its own Redis key prefix, so they run side by side).
test-fast: lint
	$(PY) -m pytest -q -x -n 2 tests/games tests/api -m "not slow" --ignore=tests/games/golden $(PYTEST_ARGS)

# The Node.js starter bot (bots/starters/node) is tested against the platform: Debian's nodejs.
$(NODE):
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get install -y --no-install-recommends nodejs npm || (apt-get update && apt-get install -y --no-install-recommends nodejs npm); \
	else echo "tests/bots needs Debian's nodejs: sudo apt-get install -y nodejs npm"; fi

$(CONTRACT_NODE): tests/contract/package-lock.json | $(NODE)
	cd tests/contract && npm ci --no-audit --no-fund

# Compose's nginx edge (deploy/nginx.conf) is run in front of the API by tests/ops/test_edge.py.
$(NGINX):
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get install -y --no-install-recommends nginx || (apt-get update && apt-get install -y --no-install-recommends nginx); \
	else echo "tests/ops needs Debian's nginx: sudo apt-get install -y nginx"; fi

# The browser tests (tests/ops/test_web.py) drive Debian's Chromium through playwright; never a
# downloaded browser. Without root we can only say what to install (the tests then fail, not skip).
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then \
	  apt-get install -y --no-install-recommends chromium || (apt-get update && apt-get install -y --no-install-recommends chromium); \
	else echo "tests/ops needs Debian's chromium: sudo apt-get install -y chromium"; fi

lint: $(STAMP)
	$(PY) -m ruff check games core api harness bots tests bench
	$(PY) -m ruff format --check games core api harness bots tests bench
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

openapi: $(STAMP)
	$(PY) -m api.openapi_gen openapi.yaml

bench: $(STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,bench]'
	$(PY) bench/engine_bench.py

clean:
	rm -rf $(VENV) var .pytest_cache
