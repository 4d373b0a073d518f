# Two commands set everything up on a machine with only python3 and make:
#   make run    -- the main job on the embedded synthetic challenge
#   make test   -- the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
RUNTIME := $(VENV)/.runtime
STAMP  := $(VENV)/.installed
DOCS   := $(VENV)/.docs

.PHONY: run test test-fast docs bench browser-check kernel-coverage clean

# the runtime alone (what `make run` needs); the test tools on top of it (the `test` extra) for the rest
$(RUNTIME): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# the documentation site (Sphinx, the `docs` extra): docs/_build/html/index.html, warnings as errors, the notebooks
# executed (the BU-BIL one where the shared data is found)
$(DOCS): $(RUNTIME)
	$(PY) -m pip install --quiet -e '.[docs]'
	touch $(DOCS)

docs: $(DOCS)
	rm -rf docs/_build docs/api docs/notebooks
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

run: $(RUNTIME)
	$(PY) -m experiments.rank_convergence

test: $(STAMP)
	$(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not slow"

bench: $(STAMP)
	$(PY) -m benchmarks.bench_overlap
	$(PY) -m benchmarks.bench_score
	$(PY) -m benchmarks.bench_parallel
	$(PY) -m benchmarks.bench_resampling
	$(PY) -m benchmarks.bench_startup
	$(PY) -m benchmarks.bench_main_job
	$(PY) -m benchmarks.bench_ranking_methods
	$(PY) -m benchmarks.bench_population
	$(PY) -m benchmarks.bench_case_rankings
	$(PY) -m benchmarks.bench_surface
	$(PY) -m benchmarks.bench_surfels
	$(PY) -m benchmarks.bench_pool
	$(PY) -m benchmarks.bench_generate
	$(PY) -m benchmarks.bench_design

# summary.md and report.html with hostile names, opened in headless Chromium (npm's puppeteer-core and
# @sparticuz/chromium; needs node and npm): fails when any script runs (docs/development.md)
browser-check: $(STAMP)
	cd tests/browser && npm install --silent --no-audit --no-fund
	rm -rf results/browser-check
	$(PY) -m tests.browser.hostile_report results/browser-check
	node tests/browser/check.js results/browser-check/table/results/summary.md \
		results/browser-check/table/results/report.html results/browser-check/raters/results/summary.md \
		results/browser-check/raters/results/report.html

# the numba kernels' line coverage by their twin tests, with the JIT off (needs the coverage package)
kernel-coverage: $(STAMP)
	$(PY) -m pip install --quiet coverage
	$(PY) -m tests.kernel_coverage

clean:
	rm -rf $(VENV) results .pytest_cache docs/_build docs/api docs/notebooks docs/jupyter_execute
