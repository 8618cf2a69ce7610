# Two entry points: `make demo` (release + autograde the sample class) and `make test`.
PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

KIT    := $(shell find kit -type f -not -path '*/__pycache__/*' -not -path '*.egg-info*' -not -path 'kit/build/*')
# what the kit's public data and sentences are built from: the assignments and the points
COURSE := $(shell find autograder/assignments -type f \( -name '*.py' -o -name '*.md' \) -not -path '*/__pycache__/*') course_config.py

export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: demo test test-scale test-hub venv clean

$(STAMP): requirements.lock package-lock.json pyproject.toml $(KIT) $(COURSE)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e . >$(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; exit 1; }  # the build's notes, shown on failure
	PYTHONPATH=kit $(BIN)/python -c "from autograder.authoring import kit; kit.install()"  # the kit, its data built from the assignments
	command -v npm >/dev/null || { echo 'make venv: npm is missing (Debian: apt-get install npm); it installs the MathJax of package-lock.json'; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error  # node_modules/: MathJax, which the feedback page inlines
	$(BIN)/python -m compileall -q autograder >/dev/null  # as pip does for an installed package: every command starts faster
	$(BIN)/python -m autograder.coursedir.privacy  # once: what to do where other users can read this checkout
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m autograder demo

test: $(STAMP)
	$(BIN)/ruff format --check --quiet . && $(BIN)/ruff check --quiet .  # the code's form and lint (pyproject.toml)
	$(BIN)/python -m pytest -q -n 2 --dist loadscope -m "not scale and not hub"  # two workers; the tests of one graded class on one of them (tests/conftest.py)

test-scale: $(STAMP)
	$(BIN)/python -m pytest -q -m scale tests/test_scale.py  # a class of a few hundred: one by one, pool and Dask agree

test-hub: $(STAMP)
	$(BIN)/python -m pytest -q -m hub tests/hub  # a real JupyterHub as root: accounts, roles, the whole cycle in Chromium, nothing left running

clean:
	rm -rf $(VENV) node_modules demo-course .pytest_cache
