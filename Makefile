# zklock: the two set-up commands are `make demo` and `make test`; both
# install what they need first (see sandbox/deps.sh).
GO      ?= go
BIN     := bin/zklock
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all deps build test demo bench lint fuzz soak clean

all: build

deps:
	bash sandbox/deps.sh

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) .

test: deps
	$(GO) vet ./...
	$(GO) test -race -timeout 25m ./...

demo: deps build
	./$(BIN) demo

bench: deps build
	$(GO) run ./bench

lint:
	@out=$$(gofmt -l . | grep -v '^vendor/'); if [ -n "$$out" ]; then echo "gofmt:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
