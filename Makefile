# Two commands do all set-up on a fresh machine with only python3:
#   make run    # create .venv, install cardlab, run the default pipeline
#   make test   # create .venv, install cardlab + test extras, run the tests
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= all

.PHONY: run test bench report clean-results

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES)

test: $(BIN)/.installed
	$(BIN)/python -m pytest

bench: $(BIN)/.installed
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean-results:
	rm -rf results reports/*.md reports/*.csv reports/*.png reports/*.html
