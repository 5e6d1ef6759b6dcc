# Two entry points for people: `make run` opens the studio, `make check` runs every test.
# Both install what is missing (scripts/install-deps), configure once and build incrementally.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=

FUZZ_SECONDS ?= 60

.PHONY: run check check-slow sanitize fuzz build deps bench clean

deps:
	@scripts/install-deps

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	@scripts/run-studio $(BUILD_DIR)

check: build
	cd $(BUILD_DIR) && ctest --output-on-failure --no-tests=error -j $(JOBS) -LE slow

# The tests tagged [.slow] (demo-model acceptance, the experiment scripts); CI runs them too.
check-slow: build
	cd $(BUILD_DIR) && ctest --output-on-failure --no-tests=error -j $(JOBS) -L slow

# The whole suite built with AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/).
sanitize: deps
	@scripts/sanitize build-sanitize $(JOBS)

# Every parser under libFuzzer with ASan and UBSan, FUZZ_SECONDS each (tests/fuzz, docs/fuzzing.md).
fuzz:
	@scripts/fuzz build-fuzz $(FUZZ_SECONDS)

bench: build
	@scripts/bench $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
