# zklock: the two set-up commands are `make demo` and `make test`; both
# install what they need first (see sandbox/deps.sh).
GO      ?= go
BIN     := bin/zklock
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)

.PHONY: all deps build test test-short demo bench lint fuzz soak clean

all: build

deps:
	bash sandbox/deps.sh

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

test: deps release-tools
	$(GO) vet ./...
	$(GO) test -race -timeout 25m ./...
	$(MAKE) fuzz FUZZTIME=60000x

# The inner loop: every test that needs no ZooKeeper, no KDC and no real
# client (those skip under -short through sandboxtest.Need; ZKLOCK_SANDBOX=off
# makes any that forgot it fail at once instead of starting a JVM). Installs
# nothing; under a minute on this 2-core machine once the build cache is warm.
test-short:
	ZKLOCK_SANDBOX=off $(GO) test -short -count=1 ./...

demo: deps build
	./$(BIN) demo

bench: deps build
	$(GO) run ./bench

# go test -fuzz takes one target per run. Seeds: testdata/fuzz/<Target> in
# each package; a failing input found here is written there too.
# The budget is a count of executions (60000x took 3 to 6 s a target on a
# quiet machine here, 20 to 80 s for all four under load), not a duration:
# Go 1.26's coordinator can report its own -fuzztime deadline as a failure
# ("context deadline exceeded", no crasher; go.dev/issue/75804), which CI
# hit once. A count never reaches that deadline.
FUZZTIME ?= 500000x
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzOrder$$' -fuzztime $(FUZZTIME) ./lockops/ordering
	$(GO) test -run '^$$' -fuzz '^FuzzSanitize$$' -fuzztime $(FUZZTIME) ./model
	$(GO) test -run '^$$' -fuzz '^FuzzParseAuth$$' -fuzztime $(FUZZTIME) ./config
	$(GO) test -run '^$$' -fuzz '^FuzzParseServers$$' -fuzztime $(FUZZTIME) ./config

# Not in CI: demo-level churn with the console model attached; fails if heap
# or goroutines grow. `make soak SOAKTIME=3m` for a quick check.
SOAKTIME ?= 30m
# The linearizability suite (docs/fencing.md) repeats its faults for
# HISTORYTIME, each of its four tests.
HISTORYTIME ?= 10m
soak: deps
	$(GO) run ./bench/soak -duration $(SOAKTIME)
	ZKLOCK_HISTORY_DURATION=$(HISTORYTIME) $(GO) test -race -count=1 -timeout 0 -v -run '^(TestHistoryUnderFaults|TestFencingUnderPause|TestHistoryWithPeersUnderFaults|TestFencingUnderPeerPause)$$' ./lockops

lint:
	@out=$$(gofmt -l . | grep -v '^vendor/'); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The release build (.goreleaser.yaml) for every platform, into dist/,
# published nowhere. goreleaser runs through `go run` at this version, so
# nothing is installed and its dependencies stay out of our go.mod
# (release/goreleaser_test.go runs the same version).
# A checkout without a remote is given the project's (by environment, the
# checkout untouched): goreleaser otherwise stamps the commit as "none".
GORELEASER ?= github.com/goreleaser/goreleaser/v2@v2.15.1
.PHONY: release-snapshot
release-snapshot:
	$(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/zklock/zklock.git) \
	$(GO) run $(GORELEASER) release --snapshot --clean

clean:
	rm -rf bin build dist

# goreleaser compiled once, before the tests (release/goreleaser_test.go
# runs the same version): compiling it from source takes about 7 CPU
# minutes the first time on a machine, which must not count against the
# tests' timeout. Later runs find it in Go's build cache.
.PHONY: release-tools
release-tools:
	$(GO) run $(GORELEASER) --version >/dev/null
