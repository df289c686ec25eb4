# The two commands a fresh machine needs are `make run` and `make test`.
.PHONY: run test test-go test-client test-pg test-pg-run generate build vet bench bench-site bench-scale playground lighthouse-deps fuzz image image-check

GO ?= go

# The shell that runs the recipe is replaced by the server (exec), so make's
# only child is docsapi itself: Ctrl-C or a SIGTERM to make (which GNU make
# passes on to its children) stops it cleanly; `go run` left it running.
run: build
	exec ./docsapi serve

# A static binary (SQLite is pure Go): the same file runs on any Linux and
# in the FROM-scratch container image.
build:
	CGO_ENABLED=0 $(GO) build -o docsapi ./cmd/docsapi

# The container image (Containerfile) around the binary above, with podman
# (or CONTAINER=docker). No base image is pulled: the context is the
# binary, /etc/passwd and /etc/group naming the unprivileged user, and
# empty /tmp and /data. image-check builds it and checks what is inside
# without starting it (test/image/check.sh).
CONTAINER ?= podman
IMAGE ?= docsapi:latest
image: build
	rm -rf image/build && mkdir -p image/build/rootfs/etc image/build/rootfs/tmp image/build/rootfs/data
	chmod 1777 image/build/rootfs/tmp
	printf 'root:x:0:0:root:/root:/sbin/nologin\ndocsapi:x:65532:65532:docsapi:/data:/sbin/nologin\n' > image/build/rootfs/etc/passwd
	printf 'root:x:0:\ndocsapi:x:65532:\n' > image/build/rootfs/etc/group
	cp docsapi image/build/docsapi
	$(CONTAINER) build --format docker -f Containerfile -t $(IMAGE) image/build

image-check: image
	test/image/check.sh $(CONTAINER) $(IMAGE)

generate:
	$(GO) tool gqlgen generate

vet:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

# Everything: formatting, vet, Go tests with the race detector (including the
# generated-code staleness check), then the official JavaScript client
# against a real docsapi process; then both again on PostgreSQL (test-pg);
# then the container image, built and checked without starting it.
test: vet test-go test-client test-pg image-check

# DOCSAPI_BIN: the hostile-input test attacks the production build (no race
# detector) in a process of its own.
# The hostile-input table (TestHostileInputs) times each answer against one
# second, so it runs alone, after the packages that run in parallel.
# MODEL_TESTS are sequential tests over thousands of SQL reads: property
# tests against a brute-force model, the link, backlink and batched
# import tests that compare answers or count statements at thousands of
# pages, and the purge tests that read whole spaces after each way of
# purging (pure-Go SQLite is some 40 times slower under -race, minutes for
# one of them). They have no concurrency for the race detector to watch, so
# they run without it; the concurrent paths they use have -race tests of
# their own.
MODEL_TESTS = ^(TestVisibleSpacesMatchEffectiveRole|Test[A-Za-z]+RandomScripts|TestDuplicateMatchesWholeCopy|TestBacklinks(MatchThePageScan|ReadWhatNamesTheTarget)|TestLinksOfPagesAnswerAsEachPage|TestListLinksCostsTheLimit|TestPublishingWriteDoesNotGrow|TestBatchedImport(StatementsAreLinear|MatchesOneTransaction)|TestReaderBetweenBatchesSeesOldContentWhole|TestPurge(InBatchesMatchesOneTransaction|StoppedHalfwayResumes))$$
# go test starts packages in the order they are named, two at a time on 2
# cores: the longest go first, so that none of them runs alone at the end.
SLOW_FIRST = ./rest ./storage ./graph ./site ./server ./cmd/docsapi
test-go: build lighthouse-deps
	DOCSAPI_BIN=$(CURDIR)/docsapi $(GO) test -race -timeout 20m -skip '^TestHostileInputs$$|$(MODEL_TESTS)' $(SLOW_FIRST) ./...
	$(GO) test -count=1 -run '$(MODEL_TESTS)' ./storage ./graph ./rest
	DOCSAPI_BIN=$(CURDIR)/docsapi $(GO) test -count=1 -run '^TestHostileInputs$$' ./cmd/docsapi

# Lighthouse for the reader site's browser test (site/lighthouse_test.go),
# at the exact versions of its lock file.
lighthouse-deps:
	cd site/lighthouse && npm ci --no-audit --no-fund

test-client: build
	cd test/client && npm ci --no-audit --no-fund && DOCSAPI_BIN=$(CURDIR)/docsapi npm test

# The Go packages whose tests open a database, and the official client
# tests, on a private PostgreSQL cluster started for the run and removed
# after it (test/pg/cluster.sh; needs PostgreSQL's server binaries). Without
# the race detector: the SQLite run above has it, and this one is about the
# SQL and the engine's behaviour.
PG_PACKAGES = $(shell $(GO) list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' $(SLOW_FIRST) ./... | grep -E ' docsapi/(apitest|storage|storage/storagetest)( |$$)' | cut -d' ' -f1)

test-pg: build
	test/pg/cluster.sh $(MAKE) --no-print-directory test-pg-run

# test-pg-run expects DOCSAPI_TEST_DB (set by test/pg/cluster.sh).
test-pg-run:
	@test -n "$$DOCSAPI_TEST_DB" || (echo "DOCSAPI_TEST_DB is not set: run make test-pg" >&2; exit 1)
	DOCSAPI_LIGHTHOUSE=off DOCSAPI_BIN=$(CURDIR)/docsapi $(GO) test -count=1 -timeout 20m -skip '^TestHostileInputs$$' $(PG_PACKAGES)
	DOCSAPI_BIN=$(CURDIR)/docsapi $(GO) test -count=1 -run '^TestHostileInputs$$' ./cmd/docsapi
	cd test/client && npm ci --no-audit --no-fund && DOCSAPI_BIN=$(CURDIR)/docsapi npm test

# docsapi against a bare chi + SQLite server on loopback (see README, Performance),
# then the reader site's figures.
bench:
	bench/run.sh
	$(MAKE) bench-site

# The reader site (docs/performance.md): a cached page against http.FileServer
# serving the same bytes, as a throughput ratio (x-fileserver, target >= 0.5),
# and the first render of a page of a 1,000-page space (p50-ms, target < 20).
bench-site:
	$(GO) test -run '^$$' -bench 'CachedPageVsFileServer|FirstRender1000Pages' -benchtime 1x ./site

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
