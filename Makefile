# proof-lm: every command creates the environment (.venv, pinned) first if it is missing.
PYTHON_BOOT ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
COURSE ?= course
SUBMISSIONS ?= submissions
KIT ?= student-kit
CHAPTERS ?=
SCHEDULER ?=
# the submission server (make serve)
HOST ?= 127.0.0.1
PORT ?= 8000
PER_HOUR ?= 6
WORKERS ?=
MAX_BYTES ?= 10000000
LAB_ARGS ?=
PYTEST_ARGS ?=

# nbgrader needs alembic (and jupyter) from the environment on PATH.
export PATH := $(BIN):$(PATH)

.PHONY: venv sandbox chromium postgresql lab test test-browser lint format chapters student-kit course release collect autograde feedback export report grade benchmark clean

venv: $(STAMP) chromium

# The OS sandbox every run of student code goes through (bubblewrap): installed where we may
# (root with apt-get, as in CI), otherwise a clear message. `make test` needs it.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (the grading sandbox) with apt-get"; \
	    apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	      { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; \
	  else \
	    echo "bubblewrap (bwrap) is needed to grade safely and to run the tests:"; \
	    echo "  sudo apt-get install bubblewrap   # Debian/Ubuntu"; \
	    echo "  sudo dnf install bubblewrap       # Fedora;  sudo pacman -S bubblewrap  # Arch"; \
	    exit 1; \
	  fi; }
	@$(PY) -c "from autograder.sandbox.host.bwrap import check_available; check_available()"

$(STAMP): requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON_BOOT) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (proof-lm)" >/dev/null
	$(BIN)/jupyter server extension enable --sys-prefix --py nbgrader >/dev/null 2>&1
	$(PY) -m autograder.course.formgrader_policy >/dev/null  # the formgrader's CSP
	$(BIN)/jupyter labextension enable --level=sys_prefix @jupyter/nbgrader >/dev/null 2>&1 || true
	touch $@

# The browser tests drive Debian's Chromium through Playwright (Playwright's own browser download
# cannot run here). Installed when missing where we can (root with apt-get, as in CI); otherwise
# say how. Without it the browser tests are skipped, or fail when PROOF_LM_REQUIRE_BROWSER=1 (CI).
CHROMIUM ?= $(or $(PROOF_LM_CHROMIUM),/usr/bin/chromium)
chromium:
	@if [ -x "$(CHROMIUM)" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Chromium for the browser tests (apt-get install chromium)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
		|| echo "could not install Chromium: the browser tests will not run" >&2; \
	else \
		echo "No Chromium at $(CHROMIUM): the browser tests need it. Install it with" \
			"'sudo apt-get install chromium' (Debian) or set PROOF_LM_CHROMIUM to a Chromium or" \
			"Chrome binary." >&2; \
	fi

# The server's database tests run on SQLite and on a throwaway PostgreSQL cluster of their own
# (tests/support/postgres.py), from Debian's package: installed when missing where we can (root with
# apt-get, as in CI). Without it those tests are skipped, or fail when PROOF_LM_REQUIRE_POSTGRES=1 (CI).
postgresql:
	@if command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing PostgreSQL for the server's database tests (apt-get install postgresql)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null \
		|| echo "could not install PostgreSQL: its tests will not run" >&2; \
	else \
		echo "No PostgreSQL: the server's database tests on it need" \
			"'sudo apt-get install postgresql' (Debian)." >&2; \
	fi

# Jupyter refuses to run as root unless told to (containers, CI).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=chapters $(ROOT_FLAG) $(LAB_ARGS)

test: $(STAMP) sandbox chromium postgresql
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@# bytecode beside the sources, once: where PYTHONDONTWRITEBYTECODE is set, every process
	@# the tests start (graders, kernels, servers, workers) would compile them again
	$(PY) -m compileall -q autograder proof_lm tests/support
	$(PY) -m pytest -n 2 --dist worksteal --durations=30 $(PYTEST_ARGS)

# Only the browser tests (JupyterLab in headless Chromium): a student's and an instructor's pages.
# With two workers, xdist hands tests out in file order: the long instructor test runs beside the two
# student tests.
test-browser: $(STAMP) sandbox chromium
	$(PY) -m pytest -n 2 -m browser $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Regenerate the student notebooks from solutions/ with nbgrader generate_assignment.
chapters: $(STAMP)
	$(PY) -m autograder.cli.instructor chapters

# What students get (no solutions, hidden tests or grader): $(KIT)/ and $(KIT).zip, rebuilt.
# SERVER_URL=https://... writes the submission server's address into the kit's submit.toml. The
# library carries the answers of the chapters whose deadline in $(COURSE)/nbgrader_config.py has
# passed, or of every chapter up to ANSWERS_THROUGH=04_gradients: re-issue the kit at each deadline.
ANSWERS_THROUGH ?=
student-kit: $(STAMP)
	rm -rf $(KIT) $(KIT).zip
	$(PY) -m autograder.kit.build $(KIT) --server "$(SERVER_URL)" --course $(COURSE) \
	  --answers-through "$(ANSWERS_THROUGH)"

# The instructor's flow on the course directory $(COURSE): `make course` creates it and its
# nbgrader_config.py (set DEADLINES there, before or after a release; it is never rewritten).
course: $(STAMP)
	$(PY) -m autograder.cli.instructor init --root $(COURSE)

release: $(STAMP)
	$(PY) -m autograder.cli.instructor release --root $(COURSE) $(CHAPTERS)

collect: $(STAMP)
	$(PY) -m autograder.cli.instructor collect --root $(COURSE) $(if $(FROM_SERVER),--from-server,$(SUBMISSIONS))

autograde: $(STAMP)
	$(PY) -m autograder.cli.instructor autograde --root $(COURSE) $(if $(NO_SANDBOX),--no-sandbox,) $(if $(SCHEDULER),--scheduler $(SCHEDULER),) $(CHAPTERS)

feedback: $(STAMP)
	$(PY) -m autograder.cli.instructor feedback --root $(COURSE) $(CHAPTERS)

export: $(STAMP)
	$(PY) -m autograder.cli.instructor export --root $(COURSE) --to $(COURSE)/grades.csv $(if $(ROSTER),--roster $(ROSTER),)

# Where the class is stuck and which hand-ins look alike: $(COURSE)/report.html and diagnoses.csv
# (with the server's first and latest submissions when $(COURSE)/submissions.db or DB= is there).
DB ?=
report: $(STAMP)
	$(PY) -m autograder.cli.instructor report --root $(COURSE) $(if $(DB),--db $(DB),)

# The submission server's tokens: each student's own submit.toml (the server's address and their
# token) in $(TOKENS)/<student>/, to send them: make tokens STUDENTS="alice bob" SERVER_URL=https://...
TOKENS ?= tokens
STUDENTS ?=
.PHONY: tokens
tokens: $(STAMP)
	$(PY) -m autograder.cli.instructor tokens --root $(COURSE) --server "$(SERVER_URL)" \
	  --submit-toml $(TOKENS) $(STUDENTS)

# The submission server, in the foreground: students upload, the trusted grader answers (README).
.PHONY: serve
serve: $(STAMP) sandbox
	$(PY) -m autograder.cli.instructor serve --root $(COURSE) --host $(HOST) --port $(PORT) --per-hour $(PER_HOUR) --max-bytes $(MAX_BYTES) $(if $(WORKERS),--workers $(WORKERS),) $(if $(SCHEDULER),--scheduler $(SCHEDULER),)

# A student's self-grade: make grade NOTEBOOK=chapters/01_bigram_counting.ipynb
grade: $(STAMP)
	$(PY) -m autograder grade $(NOTEBOOK)

benchmark: $(STAMP)
	$(PY) benchmarks/run.py

clean:
	rm -rf $(COURSE) $(KIT) $(KIT).zip build .pytest_cache
