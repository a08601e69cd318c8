# Herald — make help lists the targets.
SHELL := /bin/bash
PROJECT_ROOT := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
GOBIN ?= $(PROJECT_ROOT)bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
BUILD_TIME ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
# herald version prints these; an empty one is taken from Go's build information.
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildTime=$(BUILD_TIME)
HERALD_TEST_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
STATICCHECK_VERSION := v0.8.2
GOVULNCHECK_VERSION := v1.9.0
VULNDB ?= https://vuln.go.dev
export GOBIN

.DEFAULT_GOAL := help

.PHONY: help
help: ## list targets with one-line descriptions
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-16s %s\n", $$1, $$2}'

.PHONY: build
build: ## build ./bin/herald (pure Go, no cgo)
	CGO_ENABLED=0 go build -trimpath -ldflags "$(LDFLAGS)" -o bin/herald ./cmd/herald

.PHONY: run
run: build ## run herald serve on the embedded SQLite + sandbox defaults
	@echo
	@echo "Herald is starting on http://127.0.0.1:8080 (SQLite file herald.db)."
ifeq ($(and $(HERALD_WHATSAPP_ACCESS_TOKEN),$(HERALD_WHATSAPP_PHONE_NUMBER_ID)),)
	@echo "Which keys can send: test keys (sk_test_), in the sandbox, which never leaves this machine."
	@echo "  Live keys (sk_live_) answer 503 whatsapp_not_configured: set HERALD_WHATSAPP_ACCESS_TOKEN and"
	@echo "  HERALD_WHATSAPP_PHONE_NUMBER_ID to send through WhatsApp."
else
	@echo "Which keys can send: live keys (sk_live_) through WhatsApp, from phone number id $(HERALD_WHATSAPP_PHONE_NUMBER_ID);"
	@echo "  test keys (sk_test_) in the sandbox, which never leaves this machine."
endif
	@echo "In another terminal, create a test key and a campaign:"
	@echo "  export KEY=\$$(./bin/herald keys create --name dev --mode test -q)"
	@echo "  export CAMPAIGN=\$$(./bin/herald campaigns create --name Welcome --template-name welcome --language en_US \\"
	@echo "      --body 'Hi {{1}}, your code is {{2}}' --variable-label 'First name' --variable-label Code --activate -q)"
	@echo "  ./bin/herald admin create --email you@example.com   (then open http://127.0.0.1:8080/dashboard/)"
	@echo "then follow the tour in README.md."
	@echo
	./bin/herald serve

.PHONY: migrate
migrate: build ## apply database migrations to the configured database
	./bin/herald migrate

.PHONY: generate
generate: ## regenerate moq fakes in ports/portsmock
	go generate ./...

.PHONY: check-generate
check-generate: generate ## fail if generated files are stale
	git diff --exit-code -- ports/portsmock

.PHONY: fmt
fmt: ## gofmt the tree
	gofmt -w $$(git ls-files '*.go')

.PHONY: tools
tools: ## install the pinned lint tools into ./bin
	@go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@go install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)

.PHONY: lint
lint: tools openapi-lint ## gofmt check, go vet, staticcheck, govulncheck, import rules, go.mod tidy, the OpenAPI document's lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1; }
	go vet ./...
	$(GOBIN)/staticcheck ./...
	@$(MAKE) --no-print-directory vuln
	go test -count=1 -run 'ImportRules|Forbidden' ./test/
	go mod tidy -e -diff >/dev/null 2>&1 || { echo "go.mod or go.sum is not tidy: run go mod tidy -e"; exit 1; }

# Spectral, pinned in tools/spectral/package-lock.json, installed from the npm
# registry with npm ci (scripts off) when the lock file is newer than the
# install. Warnings fail too: tools/spectral/spectral.yaml adds the rules
# generated clients need (security on every operation, typed enums).
SPECTRAL := tools/spectral/node_modules/.bin/spectral
$(SPECTRAL): tools/spectral/package-lock.json tools/spectral/package.json
	cd tools/spectral && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

.PHONY: openapi-lint
openapi-lint: $(SPECTRAL) ## lint adapters/httpapi/openapi.json with Spectral (pinned): zero errors and warnings
	$(SPECTRAL) lint --quiet --ruleset tools/spectral/spectral.yaml --fail-severity warn adapters/httpapi/openapi.json

# govulncheck exits 3 when the code reaches a known vulnerability: that fails.
# When the vulnerability database ($(VULNDB)) cannot be reached at all, as on
# a machine without internet access, the check is reported as skipped rather
# than failing every build; set VULNDB_REQUIRED=1 to fail instead.
.PHONY: vuln
vuln: tools ## govulncheck ./... against $(VULNDB)
	@out=$$($(GOBIN)/govulncheck -db '$(VULNDB)' ./... 2>&1); rc=$$?; echo "$$out" | tail -n 40; \
	if [ $$rc -ne 0 ] && [ -z "$$VULNDB_REQUIRED" ] && echo "$$out" | grep -q 'fetching vulnerabilities'; then \
	  echo "govulncheck: SKIPPED, the vulnerability database $(VULNDB) cannot be reached"; exit 0; fi; \
	exit $$rc

.PHONY: test
test: ## unit, contract (memory + SQLite), API, end-to-end and README tour tests, race detector on (needs a C compiler)
	CGO_ENABLED=1 go test -race -count=1 ./...

.PHONY: test-postgres
test-postgres: ## store suites against PostgreSQL ($$HERALD_TEST_POSTGRES_URL)
	HERALD_TEST_POSTGRES_URL='$(HERALD_TEST_POSTGRES_URL)' go test -race -count=1 ./adapters/sqlstore/...

# go test -fuzz takes one package and one target at a time (and no -race),
# so the loop runs them one by one. Only the packages whose test files
# declare a Fuzz function are listed (listing every package would build every
# test binary); a package whose listing fails, say because it does not
# compile, fails the target instead of being skipped. A failing input is
# written to the package's testdata/fuzz/<Target>/. Go 1.26's coordinator
# can end a run that found nothing with "context deadline exceeded" when
# FUZZTIME runs out (golang/go#75804): that is reported and not a failure;
# a count (FUZZTIME=100000x) avoids it.
.PHONY: fuzz
fuzz: ## run every fuzz target for FUZZTIME each (default 10s)
	@set -eo pipefail; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	dirs=$$(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' . | grep -v '/testdata/' | xargs -r -n1 dirname | sort -u); \
	test -n "$$dirs" || { echo "fuzz: no fuzz targets found"; exit 1; }; \
	for dir in $$dirs; do \
	  list=$$(go test -list '^Fuzz' $$dir/) || { echo "$$list"; echo "fuzz: cannot list the fuzz targets of $$dir"; exit 1; }; \
	  for f in $$(echo "$$list" | grep '^Fuzz'); do \
	    echo "fuzz $$dir $$f ($${FUZZTIME:-10s})"; \
	    if ! go test -run '^$$' -fuzz "^$$f$$" -fuzztime $${FUZZTIME:-10s} $$dir/ 2>&1 | tee "$$log"; then \
	      if grep -q 'context deadline exceeded' "$$log" && ! grep -q 'Failing input written' "$$log"; then \
	        echo "fuzz: $$f stopped with Go's fuzztime race (golang/go#75804) and no failing input: not a failure"; \
	      else exit 1; fi; \
	    fi; \
	  done; \
	done

.PHONY: bench
bench: ## the CPU readings' own check (build tag bench), Go micro-benchmarks (6 runs each, enough for benchstat's confidence intervals; bench.txt), event delivery (both engines), the HTTP load run (floor, SQLite, PostgreSQL), the dispatch run, the whole pipeline at 250 to 1,000 msg/s, and again from four stored sender numbers at 500 and 1,000 msg/s (30 s each)
	go test -tags bench -count=1 ./test/cpustat/
	set -o pipefail; go test -run '^$$' -bench . -benchmem -count 6 ./domain/ ./app/ ./adapters/httpapi/ ./adapters/sqlstore/ | tee bench.txt
	set -o pipefail; HERALD_TEST_POSTGRES_URL='$(HERALD_TEST_POSTGRES_URL)' go test -run '^$$' -bench . -benchtime 3000x -count 3 ./app/events/ | tee -a bench.txt
	go run ./test/load -duration 10s -connections 64 -postgres '$(HERALD_TEST_POSTGRES_URL)'
	go run ./test/load -dispatch 5000 -latency 100ms -mps 1000
	go run ./test/load -pipeline -rates 250,500,750,1000 -postgres '$(HERALD_TEST_POSTGRES_URL)'
	go run ./test/load -pipeline -numbers 4 -rates 500,1000 -duration 30s -postgres '$(HERALD_TEST_POSTGRES_URL)'

.PHONY: cover
cover: ## coverage profile and HTML report
	go test -race -count=1 -coverprofile=cover.out ./...
	go tool cover -html=cover.out -o cover.html

.PHONY: image-check
image-check: ## build the container image's final stage with podman around a local binary and check it (deploy/check-image.sh)
	deploy/check-image.sh

.PHONY: systemd-check
systemd-check: ## systemd-analyze verify and security on deploy/herald.service (deploy/check-systemd.sh)
	deploy/check-systemd.sh

# Release binaries: static (no cgo), stripped of paths, with the version
# from git describe (a tag vX.Y.Z on a release commit), one per platform,
# and their SHA-256 sums in dist/SHA256SUMS (sha256sum -c SHA256SUMS checks
# them). The CHANGELOG's section for the tag is the release's notes;
# docs/releases.md is the recipe.
RELEASE_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
# The build time of a release is its commit's, so that building the same
# commit again gives the same bytes and sums.
RELEASE_TIME = $(shell TZ=UTC git show -s --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ HEAD 2>/dev/null)
RELEASE_LDFLAGS = -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.buildTime=$(RELEASE_TIME)

.PHONY: release
release: ## build herald for linux and darwin × amd64 and arm64 into dist/, with SHA256SUMS
	@rm -rf dist && mkdir -p dist
	@set -e; for p in $(RELEASE_PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; out=dist/herald-$(VERSION)-$$os-$$arch; \
	  echo "build $$out"; \
	  CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "-s -w $(RELEASE_LDFLAGS)" -o $$out ./cmd/herald; \
	done
	cd dist && sha256sum herald-* > SHA256SUMS
	@cat dist/SHA256SUMS

.PHONY: check
check: check-generate lint test image-check systemd-check ## everything CI runs

.PHONY: clean
clean: ## remove build outputs
	rm -rf bin dist cover.out cover.html bench.txt
