# Two commands do all set-up on a fresh machine with only python3:
#   make run    # create .venv, install cardlab (pinned: requirements.lock), run the default pipeline
#   make test   # create .venv, install cardlab + test tools, lint, run the tests
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= all
# pytest workers; a test file stays on one worker (--dist loadfile: the real-SLURM file starts one cluster)
TEST_WORKERS ?= 2
LINTED  = engines tests bench research workflow/scripts

.PHONY: run test lint test-tools docs bench bench-cold research research-test clean-results

# requirements.lock pins every package to the version the results were produced with;
# pyproject.toml keeps the ranges a library user installs against.  PYTHONWARNINGS silences
# setuptools' warning on every editable install (about folders named like the package).
# `make run` installs what a run needs; `make test` adds the test tools and the SLURM
# plugins (with pandas and SQLAlchemy): a quarter less to install on a fresh machine.
PIP = PYTHONWARNINGS='ignore:Editable installation' $(BIN)/python -m pip install --quiet -c requirements.lock
$(BIN)/.installed: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP) -e .
	touch $@

$(BIN)/.installed-test: $(BIN)/.installed
	$(PIP) -e '.[test,cluster]'
	touch $@

# The live view (per-game progress and ETA); snakemake's own output: results/logs/snakemake.log
run: $(BIN)/.installed
	$(BIN)/cardlab run --cores $(CORES)

# the 15 slowest tests listed at the end: the suite must stay near 10 minutes on 2 cores
test: lint test-tools
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=15

# ruff (lint + format), snakefmt, and snakemake --lint.  Snakemake's one remaining lint asks
# every rule for a conda environment or container: cardlab ships a pip environment instead.
lint: $(BIN)/.installed-test
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/snakefmt --check Snakefile workflow/rules
	@out=$$($(BIN)/snakemake --lint 2>&1); \
	if ! echo "$$out" | grep -qE '^Lints for rule|Congratulations'; then echo "$$out"; exit 1; fi; \
	other=$$(echo "$$out" | grep -E '^\s+\* ' | grep -v 'Specify a conda environment or container'); \
	if [ -n "$$other" ]; then echo "$$out"; exit 1; fi; \
	echo "snakemake --lint: clean (apart from conda/container directives: a pip environment is used)"

# docs/engines.md's table of shard kinds, from the registry (tests/test_docs.py checks it is current)
docs: $(BIN)/.installed-test
	$(BIN)/python tests/test_docs.py --write

# Some tests run outside programs: the report pages in headless Chromium and the seed's own Ruby
# program (Debian's `chromium` and `ruby`, installed here), and the real-SLURM test a private
# cluster (Debian's SLURM and MariaDB packages, which tests/slurm_cluster.py installs when the test
# starts).  As root with apt-get (CI: a clean Debian clone) they are installed system-wide when
# missing, and the terminal says so first; CARDLAB_NO_SYSTEM_PACKAGES=1 installs none, and the
# tests that need them are skipped, pytest's summary saying why.
TEST_PACKAGES := chromium:/usr/bin/chromium ruby:/usr/bin/ruby
SLURM_LOG = /tmp/cardlab-slurm-install.log
TOOLS_LOG ?= /tmp/cardlab-test-tools.log
test-tools:
	@missing=""; for p in $(TEST_PACKAGES); do [ -x "$${p#*:}" ] || missing="$$missing $${p%%:*}"; done; \
	slurm=$$($(PYTHON) tests/slurm_cluster.py packages --accounting); \
	all=$$(echo $$missing $$slurm); [ -n "$$all" ] && command -v apt-get >/dev/null 2>&1 || exit 0; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "note: $$all missing (installed only as root), so the tests that need them are skipped"; \
	elif [ -n "$$CARDLAB_NO_SYSTEM_PACKAGES" ]; then \
		echo "CARDLAB_NO_SYSTEM_PACKAGES is set: not installing Debian's $$all; the tests that need them are skipped"; \
	else \
		echo "make test runs as root, so it installs Debian packages system-wide with apt-get (skip: CARDLAB_NO_SYSTEM_PACKAGES=1 make test):"; \
		[ -z "$$missing" ] || echo "  now:$$missing (the browser and seed-program tests; log: $(TOOLS_LOG))"; \
		[ -z "$$slurm" ] || echo "  when the real-SLURM test starts: $$slurm (about 1.5 min; log: $(SLURM_LOG))"; \
		[ -z "$$missing" ] || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) \
			>$(TOOLS_LOG) 2>&1 || { tail -20 $(TOOLS_LOG); exit 1; }; \
	fi

# The kernels' speed, then the cold start (bench-cold).
# every bench runs, each printing "below target" beside a missed figure; the target fails if any missed
bench: $(BIN)/.installed
	rc=0; for b in narcotic redblack blackjack paths; do $(BIN)/python bench/$$b.py || rc=1; done; \
	python3 bench/cold_run.py || rc=1; exit $$rc

# A cold `make run` of HEAD in a fresh clone, in CPU seconds split into set-up, shard work
# (compiling and computing) and the rest (several minutes on 2 cores).
bench-cold:
	python3 bench/cold_run.py

# Research code, outside the product suite (research/README.md): the RedBlack stopping-rule study,
# what other ownership orders, a cache of finished games, shared reads or stopping where an earlier
# deal passed would save the search (exact, on every deal of one size; docs/redblack.md "Levers
# measured and not built").  `make test` never collects research/ (pytest's testpaths: tests/);
# `make research-test` checks that the study still plays the kernel's rounds (lint covers it too).
research: $(BIN)/.installed
	$(BIN)/python research/redblack_levers.py --k 12

research-test: $(BIN)/.installed-test
	$(BIN)/python -m pytest research

# Keeps the RedBlack campaign results the repository carries (tracked under results/).
clean-results:
	rm -rf results reports/*.md reports/*.csv reports/*.png reports/*.html
	git checkout -- results 2>/dev/null || true
