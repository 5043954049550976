# The two commands of the README:
#   make run    build, then run the main job (streamlab run)
#   make test   build, then run the tests (ctest)
# Variables: BUILD (build dir), CMAKE_FLAGS (e.g. -DCMAKE_CUDA_ARCHITECTURES=90),
# ARGS (passed to streamlab run, e.g. ARGS="--sizes 2^28 --trials 50").
BUILD ?= build
CMAKE_FLAGS ?=
ARGS ?=
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all build run test deps clean

all: build

deps:
	@sh scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	@sh scripts/deps.sh
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/streamlab run $(ARGS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure

clean:
	rm -rf $(BUILD)
