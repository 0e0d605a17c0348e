# Cerniq Outreach — `make run` (embedded demo) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
DEV    := DEBUG=true
ADDR   ?= 127.0.0.1:8000

.PHONY: run test lint format install migrate seed bench messages clean

$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

install: $(VENV)/.installed

migrate: install
	$(DEV) $(PY) manage.py migrate --noinput

seed: migrate
	$(DEV) $(PY) manage.py seed_demo

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
test: install
	$(PY) -m pytest -n $(TEST_WORKERS) --maxprocesses 4 --dist loadgroup

## ruff, and the one-way dependencies between the apps (.importlinter, docs/architecture.md).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) bench/import_leads.py
	$(PY) bench/pages.py
	$(PY) bench/search.py
	$(PY) bench/api.py
	$(PY) bench/send_pipeline.py
	$(PY) bench/webhooks.py
	$(PY) bench/faults.py
	$(PY) bench/worker_rss.py

## Romanian catalogue: collect the marked strings into locale/ro (translate new/fuzzy entries), compile the .mo.
I18N_IGNORE := -i $(VENV) -i var -i bench -i tests
messages: install
	$(DEV) $(PY) manage.py makemessages -l ro --no-obsolete $(I18N_IGNORE)
	$(DEV) $(PY) manage.py compilemessages -l ro $(I18N_IGNORE)

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .ruff_cache
