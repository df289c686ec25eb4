# The two commands a fresh machine needs are `make run` and `make test`.
.PHONY: run test test-go test-client generate build vet bench bench-scale playground fuzz

GO ?= go

run:
	$(GO) run ./cmd/docsapi serve

build:
	$(GO) build -o docsapi ./cmd/docsapi

generate:
	$(GO) tool gqlgen generate

vet:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

# Everything: formatting, vet, Go tests with the race detector (including the
# generated-code staleness check), then the official JavaScript client
# against a real docsapi process.
test: vet test-go test-client

test-go:
	$(GO) test -race -timeout 20m ./...

test-client: build
	cd test/client && npm ci --no-audit --no-fund && DOCSAPI_BIN=$(CURDIR)/docsapi npm test

# docsapi against a bare chi + SQLite server on loopback (see README, Performance).
bench:
	bench/run.sh

# Rebuild the GraphQL playground's third-party files (playground/assets/vendor,
# committed and embedded) from the exact versions in playground/package.json.
# Needs npm and the registry; `go build` alone never does.
playground:
	cd playground && npm ci --no-audit --no-fund && node build.mjs

# Cost against organization size: 10,000 against 1,000,000 spaces, the
# durable create against bare, peak RSS (see README, Performance).
bench-scale:
	bench/scale.sh

# Native Go fuzzing: every Fuzz target of the module, one after another, each
# for FUZZTIME with FUZZPARALLEL workers (`make test` runs their seed corpora
# in testdata/fuzz only). Findings land in the target's testdata/fuzz.
# FUZZMINIMIZE bounds the shrinking of each new interesting input (Go's
# default, 60s, stalls short runs on a busy machine).
FUZZTIME ?= 10s
FUZZPARALLEL ?= 1
FUZZMINIMIZE ?= 1s
fuzz:
	@grep -rH --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . | \
	sed -E 's#^(.*)/[^/]*:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#' | sort | \
	while read pkg name; do \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) -parallel $(FUZZPARALLEL) || exit 1; \
	done
