# The commands of the README:
#   make run      build the CLI, then run the main job (streamlab run $(ARGS))
#   make test     build everything, then run the tests (ctest)
#   make build    build everything: libraries, CLI, tests, man page
#   make install  build, then install under $(PREFIX) (cmake --install; DESTDIR is honoured)
#   make clean    remove $(BUILD)
#
# Variables:
#   BUILD        the build directory (default build)
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
#   ARGS         passed to streamlab run (e.g. ARGS="--sizes 2^28 --trials 50")
#   PREFIX       where make install puts it (default /usr/local)
#   JOBS         parallel compile jobs (default: the number of CPUs)
BUILD ?= build
ARGS ?=
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

STAMP := $(BUILD)/cmake-flags
OLD_FLAGS := $(strip $(if $(wildcard $(STAMP)),$(shell cat $(STAMP))))
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

.PHONY: all configure build run test install deps clean

all: build

deps:
	@sh scripts/deps.sh

configure:
ifeq ($(CONFIGURE),fresh)
	@sh scripts/deps.sh
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	@$(WRITE_STAMP)
else ifeq ($(CONFIGURE),again)
	@echo "streamlab: CMAKE_FLAGS '$(NEW_FLAGS)' (was '$(OLD_FLAGS)'): configuring $(BUILD) again"
	cmake -S . -B $(BUILD) $(addprefix -U,$(DROPPED)) $(CMAKE_FLAGS)
	@$(WRITE_STAMP)
endif

build: configure
	cmake --build $(BUILD) -j $(JOBS)

# The main job needs the CLI alone: the tests, the man page and the bench
# tools are not built for it.
run: configure
	cmake --build $(BUILD) -j $(JOBS) --target streamlab_cli
	$(BUILD)/streamlab run $(ARGS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
