# Every target sets itself up: a .venv is created and filled on first use, and
# refreshed whenever pyproject.toml changes.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS ?= dev

.PHONY: test serve play bench typecheck lint clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[$(EXTRAS)]'
	@touch $(STAMP)

# The gates (ruff, mypy --strict over the whole package) run first: a red gate fails the build.
# The browser tests run on their own: Playwright's sync API keeps an event loop running in each
# worker for the whole session, which would break the terminal game's asyncio tests beside it.
test: lint typecheck
	$(BIN)/python -m pytest -n 2 --timeout 600 --ignore=tests/browser $(PYTEST_ARGS)
	$(BIN)/python -m pytest -n 2 --timeout 600 tests/browser $(PYTEST_ARGS)

serve: $(STAMP)
	$(BIN)/sixnimmt serve

play: $(STAMP)
	$(BIN)/sixnimmt play

bench: $(STAMP)
	$(BIN)/sixnimmt bench engine

typecheck: $(STAMP)
	$(BIN)/python -m mypy --strict sixnimmt

lint: $(STAMP)
	$(BIN)/python -m ruff check sixnimmt tests benchmarks examples

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache
