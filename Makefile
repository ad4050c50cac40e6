# vx — a monorepo task runner with a content-addressed cache and run history,
# and vxd, its per-workspace MCP daemon.

export CGO_ENABLED := 1
GO       ?= go
BIN      := bin
PKGS     := ./...
# VERSION is stamped into both binaries (protocol/version): a tag v1.2.3 is
# 1.2.3; an untagged tree is the dev version plus the commit, so a rebuilt vx
# replaces the daemon of an older build.
DEVVERSION := $(shell sed -n 's/^const DevVersion = "\(.*\)"/\1/p' protocol/version/version.go)
GITDESC    := $(shell git describe --tags --match 'v[0-9]*' --always --dirty 2>/dev/null)
VERSION    ?= $(if $(filter v%,$(GITDESC)),$(patsubst v%,%,$(GITDESC)),$(DEVVERSION)$(if $(GITDESC),+$(GITDESC)))
COMMIT     ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)$(if $(filter %-dirty,$(GITDESC)),-dirty)
LDFLAGS    := -X github.com/vzn/vx/protocol/version.Version=$(VERSION) -X github.com/vzn/vx/protocol/version.Commit=$(COMMIT)

.PHONY: help build test race vet lint bench demo platformdemo platformbench fuzz clean release

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-8s %s\n", $$1, $$2}'

build: ## build bin/vx, bin/vxd and bin/vx-platform
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/vx ./cmd/vx
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/vxd ./cmd/vxd
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/vx-platform ./cmd/vx-platform

test: ## run every test with the race detector (what CI runs)
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

race: test ## alias of test: the suite always runs with -race

vet: ## go vet
	$(GO) vet $(PKGS)

.PHONY: vet-cross
vet-cross: ## go vet for darwin/arm64, darwin/amd64 and linux/arm64, cgo off (tests/crossvet)
	$(GO) test -count=1 -v -run TestVetCross ./tests/crossvet

lint: vet ## vet plus gofmt
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: build ## benchmarks: vx against Turborepo side by side (local and remote cache), and the daemon (see docs/benchmarks.md)
	bash scripts/bench.sh
	bash scripts/bench-remote.sh
	bash scripts/bench-npm.sh
	$(GO) run ./scripts/daemonbench -projects 1000 -executions 100000

demo: ## the main job on examples/demo: cold and warm runs, why, a sandboxed task, vxd, MCP through the shim, vxd status, then the remote cache and the team platform
	@echo "building vx, vxd and vx-platform (the first build compiles SQLite: a few minutes)"
	@$(MAKE) --no-print-directory build
	bash scripts/demo.sh

platformdemo: build ## the team platform on examples/demo: private PostgreSQL, vx-platform serve, pushed runs, team tools
	bash scripts/platform-demo.sh

platformbench: ## the platform at 100 workspaces × 100 runs × 100 tasks on a private PostgreSQL (see docs/benchmarks.md)
	bash scripts/platformbench.sh

fuzz: ## fuzz the JSON-RPC decoder for a minute
	$(GO) test ./protocol/jsonrpc -run '^$$' -fuzz FuzzDecode -fuzztime 60s

release: ## build dist/: an archive per target this host builds (static on Linux), checksums.txt, and the npm packages in dist/npm (docs/install.md)
	VERSION='$(VERSION)' COMMIT='$(COMMIT)' bash scripts/release.sh

clean: ## remove build output
	rm -rf $(BIN) dist
