# vx — a monorepo task runner with a content-addressed cache and run history,
# and vxd, its per-workspace MCP daemon.

export CGO_ENABLED := 1
GO       ?= go
BIN      := bin
PKGS     := ./...

.PHONY: help build test race vet lint bench demo platformdemo platformbench fuzz clean

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-8s %s\n", $$1, $$2}'

build: ## build bin/vx, bin/vxd and bin/vx-platform
	$(GO) build -o $(BIN)/vx ./cmd/vx
	$(GO) build -o $(BIN)/vxd ./cmd/vxd
	$(GO) build -o $(BIN)/vx-platform ./cmd/vx-platform

test: ## run every test with the race detector (what CI runs)
	$(GO) test -race -count=1 -timeout 20m $(PKGS)

race: test ## alias of test: the suite always runs with -race

vet: ## go vet
	$(GO) vet $(PKGS)

lint: vet ## vet plus gofmt
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

bench: build ## benchmarks: vx against Turborepo side by side, and the daemon (see docs/benchmarks.md)
	bash scripts/bench.sh

demo: build ## the main job on examples/demo: cold and warm runs, why, vxd, MCP through the shim, vxd status
	bash scripts/demo.sh

platformdemo: build ## the team platform on examples/demo: private PostgreSQL, vx-platform serve, pushed runs, team tools
	bash scripts/platform-demo.sh

platformbench: ## the platform at 100 workspaces × 100 runs × 100 tasks on a private PostgreSQL (see docs/benchmarks.md)
	bash scripts/platformbench.sh

fuzz: ## fuzz the JSON-RPC decoder for a minute
	$(GO) test ./protocol/jsonrpc -run '^$$' -fuzz FuzzDecode -fuzztime 60s

clean: ## remove build output
	rm -rf $(BIN)
