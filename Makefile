# Two commands do all set-up on a fresh machine with only python3:
#   make run    # create .venv, install cardlab (pinned: requirements.lock), run the default pipeline
#   make ci     # the test command (.ci/run): `make test-tools` (as root), then `make test` with every check required
# and before each commit, `make test`: create .venv, install cardlab + test tools, lint, run the tests
# (installs nothing system-wide: a test whose outside program is missing is skipped, saying how to enable it)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
CORES  ?= all
# pytest workers; a test file stays on one worker (--dist loadfile: the real-SLURM file starts one cluster
# at a time, and a file's module-scoped runs are made once), the files in tests/conftest.py's order
TEST_WORKERS ?= 2
LINTED  = engines tests bench research workflow/scripts

.PHONY: run test ci lint test-tools docs bench bench-cold research research-test clean-results

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

# the 25 slowest tests listed at the end: the suite must stay within 7 minutes on 2 cores.  The tests
# that need a browser, Ruby or SLURM are skipped where those are missing, saying how to enable them.
test: lint
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

# CI (.ci/run): the outside programs installed (as root), then the suite with every check required
# (CARDLAB_TEST_SYSTEM=1: a missing program fails its tests instead of skipping them)
ci: test-tools
	CARDLAB_TEST_SYSTEM=1 $(MAKE) test

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

# Some tests run outside programs: the report pages in headless Chromium, the seed's own Ruby
# program (Debian's `chromium` and `ruby`) and a private SLURM cluster (Debian's SLURM and MariaDB
# packages, tests/slurm_cluster.py).  `make test` installs none of them; this target, as root with
# apt-get, installs the missing ones system-wide, saying which first (as another user it says what is
# missing and installs nothing).
TEST_PACKAGES := chromium:/usr/bin/chromium ruby:/usr/bin/ruby
TOOLS_LOG ?= /tmp/cardlab-test-tools.log
test-tools:
	@missing=""; for p in $(TEST_PACKAGES); do [ -x "$${p#*:}" ] || missing="$$missing $${p%%:*}"; done; \
	slurm=$$($(PYTHON) tests/slurm_cluster.py packages --accounting); \
	all=$$(echo $$missing $$slurm); [ -n "$$all" ] || exit 0; \
	if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then \
		echo "note: $$all missing (installed only as root with apt-get), so the tests that need them are skipped"; \
	else \
		echo "make test-tools installs Debian packages system-wide with apt-get (log: $(TOOLS_LOG)): $$all"; \
		[ -z "$$missing" ] || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) \
			>$(TOOLS_LOG) 2>&1 || { tail -20 $(TOOLS_LOG); exit 1; }; \
		[ -z "$$slurm" ] || $(PYTHON) tests/slurm_cluster.py install --accounting --log $(TOOLS_LOG) \
			|| { tail -20 $(TOOLS_LOG); exit 1; }; \
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
