# Front-end to CMake. On a fresh Debian 12 machine `make run` and `make test` are the only
# commands needed: both install missing packages first (scripts/install-deps.sh).
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)

.PHONY: all deps build run run-pg tour install uninstall test unit-test asan-test fuzz bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the HTTP API server on the embedded database ./engram-data/engram.db with the
# offline defaults (hash embedder), on http://127.0.0.1:8420 (PORT=… to change). Ctrl-C stops it.
PORT ?= 8420
run: build
	$(BUILD)/engram --db ./engram-data/engram.db serve --port $(PORT)

# The same server on PostgreSQL and Redis started on loopback (data in ./engram-data/pg, kept
# between runs; PG_DIR=… to move it), as several replicas would use them: scripts/run_pg.sh.
# ENGRAM_DB=postgres://… uses that database instead. Ctrl-C stops all three.
run-pg: build
	@PORT=$(PORT) scripts/run_pg.sh $(BUILD)

# A short tour of the CLI on a fresh database under ./engram-data.
tour: build
	@scripts/tour.sh $(BUILD)/engram

# `make install` (PREFIX=/usr/local by default; DESTDIR works too): $(PREFIX)/bin/engram, the man
# page engram(1) written from `engram help` at build time, and the LLM prompts in
# $(PREFIX)/share/engram/prompts (for reference: the binary has them compiled in). Builds only
# what it installs, and no Debian packages (`make build` installs those first).
PREFIX ?= /usr/local
install: $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target engram engram_man
	cmake --install $(BUILD) --prefix "$(PREFIX)"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/engram" "$(DESTDIR)$(PREFIX)/share/man/man1/engram.1"
	rm -rf "$(DESTDIR)$(PREFIX)/share/engram/prompts"
	-rmdir "$(DESTDIR)$(PREFIX)/share/engram" 2>/dev/null

# Every test: unit and black-box tests on the Release build, then the unit tests again
# under AddressSanitizer + UndefinedBehaviorSanitizer, then a bounded fuzzing run of the
# request decoders (FUZZ_SECONDS, default 60). Needs no root and no huge pages: the huge-page
# tests check the pool's path where a pool has room and the fallback everywhere. HUGE_PAGES=N
# reserves N pages first (scripts/huge-pages.sh, root or sudo) to exercise the pool's path.
HUGE_PAGES ?= 0
test: build
	@if [ "$(HUGE_PAGES)" != 0 ]; then scripts/huge-pages.sh $(HUGE_PAGES); fi
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) asan-test
	$(MAKE) fuzz

asan-test: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DENGRAM_SANITIZE=ON \
	      -DENGRAM_BUILD_BENCH=OFF
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target engram_unit_tests
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    ctest --output-on-failure -j $(JOBS) -L unit -LE 'postgres|redis'

# libFuzzer over the request decoders, built with clang in $(FUZZ_BUILD): fuzz/README.md.
fuzz: deps
	FUZZ_BUILD=$(FUZZ_BUILD) JOBS=$(JOBS) scripts/fuzz.sh

bench: build
	scripts/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
