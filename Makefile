# Cerniq Outreach — `make run` (embedded demo) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
DEV    := DEBUG=true
ADDR   ?= 127.0.0.1:8000

.PHONY: run test test-api-deep lint types-baseline format install install-dev migrate seed bench bench-smoke bench-tools messages clean

# Two installs: running needs only the app's dependencies (`-e .`); tests, lint, benchmarks
# and the catalogue add the dev tools (`-e '.[dev]'`, several hundred MB more).
$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(VENV)/.installed-run $@

install: $(VENV)/.installed-run
install-dev: $(VENV)/.installed-dev

migrate: install
	$(DEV) $(PY) manage.py migrate --noinput

seed: migrate
	$(DEV) $(PY) manage.py seed_demo --url http://$(ADDR)/

## Fresh machine -> venv, install, migrate, demo data, serve with the worker in-process.
run: seed
	$(DEV) SANDBOX_REPLY_RATE=$${SANDBOX_REPLY_RATE:-0.3} SANDBOX_WEBHOOK_BASE_URL=http://$(ADDR) \
		RESEND_BACKEND=$${RESEND_BACKEND:-integrations.sandbox.email.SandboxEmail} \
		INSTANTLY_BACKEND=$${INSTANTLY_BACKEND:-integrations.sandbox.email.SandboxEmail} \
		$(PY) manage.py run $(ADDR)

## The test suite: SQLite + StubBroker by default; Postgres + Redis when DATABASE_URL/REDIS_URL are set.
## In parallel: one pytest-xdist worker per CPU (at most 4), each with its own test database
## and Redis database (tests/devenv.py); `make test TEST_WORKERS=0` runs it in one process.
TEST_WORKERS ?= auto
test: install-dev
	$(PY) -m pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadgroup

## The REST API's property-based runs (schemathesis) with their deep example budget (CI runs
## the suite this way); `make test` uses the quick budget.
test-api-deep: install-dev
	SCHEMATHESIS_BUDGET=deep $(PY) -m pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadgroup \
		tests/api/test_schemathesis.py

## ruff, the one-way dependencies between the apps (.importlinter, docs/architecture.md), and
## mypy with django-stubs (docs/types.md): an error not listed in mypy-baseline.txt fails.
TYPED := cerniq outreach hitl whatsapp email_channels api console integrations
lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	@mkdir -p .mypy_cache
	$(DEV) $(VENV)/bin/mypy $(TYPED) > .mypy_cache/lint.txt || [ $$? -eq 1 ] \
		|| { cat .mypy_cache/lint.txt; exit 2; }
	$(VENV)/bin/mypy-baseline filter < .mypy_cache/lint.txt

## After fixing errors of mypy-baseline.txt: list only those left (never add new ones).
types-baseline: install-dev
	$(DEV) $(VENV)/bin/mypy $(TYPED) | $(VENV)/bin/mypy-baseline sync

format: install-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## Every bench against its goal, with its ceiling measured in the same run (bench/run_all.py);
## PostgreSQL and Redis as for `make test`; each bench makes a database of its own.
## bench-smoke: every bench at a tiny size (CI), to prove none has rotted.
bench: install-dev bench-tools
	$(PY) bench/run_all.py

bench-smoke: install-dev bench-tools
	$(PY) bench/run_all.py --smoke

# bench/webhooks.py loads the server with wrk (Debian's package).
bench-tools:
	@command -v wrk >/dev/null || apt-get install -y -q wrk >/dev/null || \
		{ echo "bench/webhooks.py needs wrk: apt-get install wrk"; exit 1; }

## Romanian catalogue: collect the marked strings into locale/ro (translate new/fuzzy entries), compile the .mo.
I18N_IGNORE := -i $(VENV) -i var -i bench -i tests
messages: install-dev
	$(DEV) $(PY) manage.py makemessages -l ro --no-obsolete $(I18N_IGNORE)
	$(DEV) $(PY) manage.py compilemessages -l ro $(I18N_IGNORE)

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache .mypy_cache
