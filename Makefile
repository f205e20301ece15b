# Two commands do all set-up on a fresh machine with only python3:
#   make run    # create .venv, install cardlab, run the default pipeline
#   make test   # create .venv, install cardlab + test extras, run the tests
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= all

.PHONY: run test chromium bench clean-results

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

run: $(BIN)/.installed
	$(BIN)/snakemake --cores $(CORES)

test: $(BIN)/.installed chromium
	$(BIN)/python -m pytest

# The report test opens reports/index.html in headless Chromium (Debian package `chromium`):
# installed here only when missing and apt-get exists (CI: a clean Debian clone, as root).
chromium:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
		else echo "note: /usr/bin/chromium is missing; the browser test needs it: sudo apt-get install chromium"; fi; fi

bench: $(BIN)/.installed
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean-results:
	rm -rf results reports/*.md reports/*.csv reports/*.png reports/*.html
