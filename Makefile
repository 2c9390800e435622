# The tracker's tasks. `make run` and `make test` are all a fresh machine needs.

GO      ?= go
BIN     := bin/tracker
DATA_DIR ?= $(or $(TRACKER_DATA_DIR),./data)
ADDR    := $(or $(TRACKER_ADDR),127.0.0.1:8080)

# Code generators, pinned: sqlc here, templ by go.mod so the CLI always
# matches the runtime it generates code for. Built once into .bin/.
SQLC_VERSION  := v1.31.1
TEMPL_VERSION := $(shell $(GO) list -m -f '{{.Version}}' github.com/a-h/templ)
TOOLS := $(CURDIR)/.bin
SQLC  := $(TOOLS)/sqlc-$(SQLC_VERSION)
TEMPL := $(TOOLS)/templ-$(TEMPL_VERSION)
# nfpm builds the Debian package (make package).
NFPM_VERSION := v2.45.2
NFPM  := $(TOOLS)/nfpm-$(NFPM_VERSION)
# Pebble, the ACME CA Let's Encrypt tests clients with, and its name
# server: the test of certificates from an ACME CA runs them.
PEBBLE_VERSION := v2.10.3
PEBBLE     := $(TOOLS)/pebble-$(PEBBLE_VERSION)
PEBBLE_DNS := $(TOOLS)/pebble-challtestsrv-$(PEBBLE_VERSION)

.PHONY: soak run build test test-citus test-ha bench lighthouse check generate tools postgres clean package

## run: start the tracker on the embedded PostgreSQL cluster in $(DATA_DIR)
run: postgres build
	@if [ ! -d "$(DATA_DIR)/pgdata" ]; then \
		echo "First start: creating the demo project with 5000 items."; \
		./$(BIN) project create demo --title "Demo project" --data-dir "$(DATA_DIR)" >/dev/null && \
		seq 1 5000 | sed 's/^/item:/' | ./$(BIN) items add demo --data-dir "$(DATA_DIR)"; \
	fi
	@echo "Admin panel: http://$(ADDR)/admin/ (first admin: ./$(BIN) admin create NAME --data-dir $(DATA_DIR))"
	exec ./$(BIN) serve --data-dir "$(DATA_DIR)"

build:
	$(GO) build -o $(BIN) ./cmd/tracker

## test: every check and every test, on real PostgreSQL, then each fuzz
## target of the protocol parsers and of the whole route table for a count
## of runs, about what 10 s ran of each on 2 busy cores (FUZZTIME=Nx sets
## one count for all three). A count, not a time: at a -fuzztime deadline
## Go 1.26's fuzzing may fail a target with "context deadline exceeded",
## having found nothing (fixed in Go 1.27); a count has no deadline, and a
## loaded machine only takes longer.
FUZZ_BACKFEED     ?= 50000x
FUZZ_WARRIOR_PATH ?= 30000x
FUZZ_ROUTES       ?= 5000x
## The package's test installs what make package builds, as root; the
## ACME test gets its certificates from a Pebble CA.
test: postgres check $(NFPM) $(PEBBLE) $(PEBBLE_DNS)
	TRACKER_NFPM=$(NFPM) TRACKER_PEBBLE=$(PEBBLE) TRACKER_PEBBLE_DNS=$(PEBBLE_DNS) $(GO) test -count=1 -race -timeout 30m ./...
	$(MAKE) test-citus
	$(GO) test -run '^$$' -fuzz '^FuzzParseBackfeed$$' -fuzztime $(or $(FUZZTIME),$(FUZZ_BACKFEED)) ./items
	$(GO) test -run '^$$' -fuzz '^FuzzParseWarriorPath$$' -fuzztime $(or $(FUZZTIME),$(FUZZ_WARRIOR_PATH)) ./handlers
	$(GO) test -run '^$$' -fuzz '^FuzzRoutes$$' -fuzztime $(or $(FUZZTIME),$(FUZZ_ROUTES)) ./handlers

## test-citus: the drivers' conformance suite (Citus's driver on Citus),
## the item engine's tests, every HTTP route's (the warrior
## protocol, the board, the admin panel), the archive's, the CLI's, the
## domain packages', every background job run once, and `tracker serve`
## laying a database out itself, against a local Citus
## cluster (a coordinator and two workers, in /tmp/tracker-citus-UID);
## skipped when Citus is not installed (.ci/run builds it from source).
## The model test runs fewer sequences there:
## each takes five times as long as on one PostgreSQL. A test there waits
## mostly on the nodes (its database is made on all three), so more tests
## run at once than there are cores.
CITUS_MODEL_CHECKS ?= 5
CITUS_PARALLEL ?= 4
CITUS_JOBS_RUN := TestCitus|TestPurgeSweepsRowsOfProjectsGone|TestRunnersNeverRunAJobTwiceAtOnce|TestEnsurePartitions(CreatesDaysAhead|TakesInStrayCompletions)|Test(Reclaim|Revisit|Archive)GoesOnPastAFailingProject|TestRollupFailsPerProject
CITUS_PACKAGES := ./archive ./cmd/tracker ./projects ./users ./volunteers ./warriors ./audit ./dictionaries ./sites
test-citus: postgres
	@if ! ls /usr/lib/postgresql/*/lib/citus.so >/dev/null 2>&1; then \
		echo "Citus is not installed: skipping the Citus tests"; exit 0; \
	fi; \
	TRACKER_TEST_CITUS=1 $(GO) test -count=1 -timeout 20m ./db -run 'TestCitus' && \
	TRACKER_TEST_CITUS=1 $(GO) test -count=1 -timeout 20m ./db/drivers && \
	TRACKER_TEST_CITUS=1 TRACKER_MODEL_CHECKS=$(CITUS_MODEL_CHECKS) $(GO) test -count=1 -timeout 20m -parallel $(CITUS_PARALLEL) ./items && \
	TRACKER_TEST_CITUS=1 $(GO) test -count=1 -timeout 20m -parallel $(CITUS_PARALLEL) ./handlers && \
	TRACKER_TEST_CITUS=1 $(GO) test -count=1 -timeout 20m -parallel $(CITUS_PARALLEL) $(CITUS_PACKAGES) && \
	TRACKER_TEST_CITUS=1 $(GO) test -count=1 -timeout 20m -parallel $(CITUS_PARALLEL) ./jobs -run '$(CITUS_JOBS_RUN)' && \
	TRACKER_TEST_CITUS=1 $(GO) test -count=1 -timeout 20m ./e2e -run 'TestCitus'

## test-ha: automatic failover on pg_auto_failover (Debian's
## postgresql-15-auto-failover): a monitor, a primary and a synchronous
## standby on loopback, two tracker processes under warriors and backfeed,
## the primary's node killed, then an orchestrated failover back. It waits
## out the monitor's timeouts (a minute or more), so it is kept out of
## `make test`; skipped when pg_autoctl is not installed (.ci/run installs it).
test-ha: postgres
	@if ! command -v pg_autoctl >/dev/null 2>&1; then \
		echo "pg_auto_failover is not installed: skipping the failover test"; exit 0; \
	fi; \
	TRACKER_TEST_HA=1 $(GO) test -count=1 -timeout 15m -run '^TestAutomaticFailover$$' -v ./e2e

## bench: the tracker under warrior load, on a fresh embedded cluster; one table
## on stdout. BENCH_FLAGS="-duration 60s -sweep" for the long run with the
## scale sweeps; trackerbench -h lists the flags.
BENCH_FLAGS ?= -duration 10s
bench: postgres build
	$(GO) build -o bin/trackerbench ./cmd/trackerbench
	./bin/trackerbench -tracker $(BIN) $(BENCH_FLAGS)

## soak: the item engine's model test for MODEL_CHECKS sequences, then the
## mixed load for SOAK_DURATION with faults injected at random (the tracker
## killed and restarted, PostgreSQL stopped for 10 s), then the books
## checked; fails when they do not balance.
SOAK_DURATION ?= 10m
MODEL_CHECKS ?= 2000
soak: postgres build
	TRACKER_MODEL_CHECKS=$(MODEL_CHECKS) TRACKER_MODEL_SEED=random $(GO) test -count=1 -timeout 60m -run '^TestModel$$' ./items
	$(GO) build -o bin/trackerbench ./cmd/trackerbench
	./bin/trackerbench -tracker $(BIN) -soak -duration $(SOAK_DURATION)

## package: the Debian package dist/tracker_VERSION_ARCH.deb: the binary,
## a systemd unit for tracker serve, /etc/default/tracker (every flag of
## serve as a variable), the docs and `tracker help`
PACKAGE_VERSION ?= $(shell git log -1 --format=0.%cd+%h --date=format:%Y%m%d%H%M%S 2>/dev/null || echo 0.0)
package: $(NFPM)
	@mkdir -p dist
	CGO_ENABLED=0 $(GO) build -trimpath -o dist/tracker ./cmd/tracker
	./dist/tracker help > dist/tracker-help.txt
	GOARCH=$$($(GO) env GOARCH) TRACKER_VERSION=$(PACKAGE_VERSION) \
		$(NFPM) package --config packaging/nfpm.yaml --packager deb --target dist/

## lighthouse: Lighthouse's scores of home, a leaderboard, /warriors/ and
## two admin pages (a project's overview and its queues), on a phone and a
## desktop (needs Node.js and Chromium)
lighthouse: postgres build
	./e2e/lighthouse.sh

## check: formatting, vet, and generated code that matches its sources
check: postgres $(SQLC) $(TEMPL)
	@unformatted=$$(gofmt -l . | grep -v '_templ\.go$$'); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	@$(GO) run ./cmd/sqlinclude -check
	@$(GO) run ./cmd/schemadump -check
	@$(SQLC) diff || { echo "sqlc output is stale: run 'make generate' and commit"; exit 1; }
	@tmp=$$(mktemp -d) && trap 'rm -rf $$tmp' EXIT && cp views/*.templ $$tmp/ && \
	$(TEMPL) generate -path $$tmp >/dev/null 2>&1 && \
	for f in $$tmp/*_templ.go; do \
		cmp -s $$f views/$$(basename $$f) || { echo "templ output is stale (views/$$(basename $$f)): run 'make generate' and commit"; exit 1; }; \
	done && \
	for f in views/*_templ.go; do \
		[ -e $$tmp/$$(basename $$f) ] || { echo "$$f has no .templ source: remove it"; exit 1; }; \
	done

## generate: regenerate the sqlc and templ code, and db/schema.sql
generate: $(SQLC) $(TEMPL)
	$(GO) run ./cmd/sqlinclude
	$(GO) run ./cmd/schemadump
	$(SQLC) generate
	$(TEMPL) generate -path views

tools: $(SQLC) $(TEMPL) $(NFPM) $(PEBBLE) $(PEBBLE_DNS)

# sqlc builds with cgo and takes minutes the first time.
$(SQLC):
	@mkdir -p $(TOOLS)/tmp
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)
	mv $(TOOLS)/tmp/sqlc $@

$(NFPM):
	@mkdir -p $(TOOLS)/tmp
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)
	mv $(TOOLS)/tmp/nfpm $@

$(PEBBLE) $(PEBBLE_DNS):
	@mkdir -p $(TOOLS)/tmp
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/letsencrypt/pebble/v2/cmd/$(patsubst %-$(PEBBLE_VERSION),%,$(notdir $@))@$(PEBBLE_VERSION)
	mv $(TOOLS)/tmp/$(patsubst %-$(PEBBLE_VERSION),%,$(notdir $@)) $@

$(TEMPL):
	@mkdir -p $(TOOLS)/tmp
	GOBIN=$(TOOLS)/tmp $(GO) install github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION)
	mv $(TOOLS)/tmp/templ $@

## postgres: make sure PostgreSQL's server programs are installed
postgres:
	@if command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "PostgreSQL's server programs are missing. Install them with:"; \
		echo "  sudo apt-get install -y postgresql"; \
		exit 1; \
	fi; \
	echo "Installing PostgreSQL (apt-get install postgresql)"; \
	mkdir -p /etc/postgresql-common && \
	{ [ -e /etc/postgresql-common/createcluster.conf ] || echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.conf; } && \
	apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql

clean:
	rm -rf bin
