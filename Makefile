# The commands of the README:
#   make run      build the CLI for this machine in $(RUN_BUILD), then run the main job
#                 (streamlab run $(ARGS)): with no GPU (nvidia-smi lists none) the CUDA
#                 backend is left out (-DSL_ENABLE_CUDA=OFF, said in one line); with one,
#                 CMake compiles for its architecture alone
#   make test     build everything, then run the tests (ctest)
#   make build    build everything: libraries, CLI, tests, man page
#   make install  build, then install under $(PREFIX) (cmake --install; DESTDIR is honoured)
#   make clean    remove $(BUILD) and $(RUN_BUILD)
#
# Variables:
#   BUILD        the build directory (default build)
#   RUN_BUILD    make run's build directory (default $(BUILD)-run): its own, so that a
#                CPU-only run build and make test's every-backend build never reconfigure
#                each other
#   CMAKE_FLAGS  options for CMake's configure step, for example
#                  -DCMAKE_CUDA_ARCHITECTURES=90  compile for these GPUs only
#                  -DSL_CUDA_ALL_ARCHS=ON         every architecture CUDA 13 supports,
#                                                 sm_75..sm_120 + PTX (CI passes it)
#                  -DSL_ENABLE_CUDA=OFF           a CPU-only build
#                  -DSL_WERROR=ON                 warnings are errors (CI passes it)
#                  -DSL_BUILD_BENCH=ON            bench/ tools on a machine without a GPU
#                Without either architecture flag the build is for the GPU present or,
#                with none, sm_90 and sm_100 SASS plus compute_90 PTX (CMakeLists.txt).
#                The flags a build was configured with are kept in $(BUILD)/cmake-flags.
#                Given (even empty: CMAKE_FLAGS=), they are the whole configuration: when
#                they differ from the kept ones make configures again, and a -DNAME=...
#                dropped since then goes back to its default (cmake -UNAME). Not given,
#                the kept ones stay (make test CMAKE_FLAGS=X; make install: both X).
#                make run keeps its own ($(RUN_BUILD)/cmake-flags): the GPU check's
#                -DSL_ENABLE_CUDA=OFF, then CMAKE_FLAGS as given (so -DSL_ENABLE_CUDA=ON wins).
#   ARGS         passed to streamlab run (e.g. ARGS="--sizes 2^28 --trials 50")
#   PREFIX       where make install puts it (default /usr/local)
#   JOBS         parallel compile jobs (default: the number of CPUs)
BUILD ?= build
RUN_BUILD ?= $(BUILD)-run
ARGS ?=
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

STAMP := $(BUILD)/cmake-flags
OLD_FLAGS := $(strip $(if $(wildcard $(STAMP)),$(shell cat $(STAMP))))
FLAGS_GIVEN := $(if $(filter undefined,$(origin CMAKE_FLAGS)),,yes)
ifeq ($(origin CMAKE_FLAGS),undefined)
CMAKE_FLAGS := $(OLD_FLAGS)
endif
NEW_FLAGS := $(strip $(CMAKE_FLAGS))
# NAME of every -DNAME=value and -DNAME:TYPE=value in a flag list.
define_names = $(foreach f,$(filter -D%,$(1)),$(firstword $(subst :, ,$(firstword $(subst =, ,$(patsubst -D%,%,$(f)))))))
DROPPED := $(filter-out $(call define_names,$(NEW_FLAGS)),$(call define_names,$(OLD_FLAGS)))

# fresh: no build yet; again: configured without a stamp (by hand, or by an
# older Makefile) or with other flags; empty: up to date.
ifeq ($(wildcard $(BUILD)/CMakeCache.txt),)
CONFIGURE := fresh
else ifeq ($(wildcard $(STAMP)),)
CONFIGURE := again
else ifneq ($(OLD_FLAGS),$(NEW_FLAGS))
CONFIGURE := again
else
CONFIGURE :=
endif
WRITE_STAMP = printf '%s\n' '$(subst ','\'',$(NEW_FLAGS))' > $(STAMP)

.PHONY: all configure build run run-cli test install deps clean

all: build

deps:
	@sh scripts/deps.sh

configure:
ifeq ($(CONFIGURE),fresh)
	@sh scripts/deps.sh $(DEPS_ARGS)
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	@$(WRITE_STAMP)
else ifeq ($(CONFIGURE),again)
	@echo "streamlab: CMAKE_FLAGS '$(NEW_FLAGS)' (was '$(OLD_FLAGS)'): configuring $(BUILD) again"
	cmake -S . -B $(BUILD) $(addprefix -U,$(DROPPED)) $(CMAKE_FLAGS)
	@$(WRITE_STAMP)
endif

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job needs the CLI alone, for this machine: the tests, the man
# page, the bench tools and (with no GPU) the CUDA kernels are not built for
# it. Its build directory is its own; the GPU check decides its flags when
# it is first configured and whenever CMAKE_FLAGS is given.
NO_GPU_FLAG = -DSL_ENABLE_CUDA=OFF
run:
	@if nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then gpu=""; else gpu="$(NO_GPU_FLAG)"; \
	  echo "streamlab: no GPU found (nvidia-smi lists none): make run builds the CPU backend only, in $(RUN_BUILD) (make build, make test and make install build every backend)"; fi; \
	if [ -n "$(FLAGS_GIVEN)" ] || [ ! -f $(RUN_BUILD)/cmake-flags ]; then \
	  $(MAKE) --no-print-directory run-cli BUILD=$(RUN_BUILD) DEPS_ARGS=--run CMAKE_FLAGS="$$gpu $(if $(FLAGS_GIVEN),$(CMAKE_FLAGS))"; \
	else \
	  $(MAKE) --no-print-directory run-cli BUILD=$(RUN_BUILD) DEPS_ARGS=--run; \
	fi
	$(RUN_BUILD)/streamlab run $(ARGS)

run-cli: configure
	cmake --build $(BUILD) -j $(JOBS) --target streamlab_cli

test: build
	ctest --test-dir $(BUILD) --output-on-failure

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(RUN_BUILD)
