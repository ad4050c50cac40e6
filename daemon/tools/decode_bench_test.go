package tools

import (
	"encoding/json"
	"testing"

	"github.com/vzn/vx/opkit"
)

// BenchmarkArguments is what a tool call spends on its arguments before
// the operation runs: strict decoding into the typed input, the schema
// check, Validate.
func BenchmarkArguments(b *testing.B) {
	raw := json.RawMessage(`{"tasks": ["build", "test"], "query": "x", "taskId": "@scope/web#build", "runId": "01H", "force": true, "limit": 10,
		"filter": ["web", "tag:ui"], "format": "json", "scope": {"project": "web", "task": "build"}, "affected": "origin/main"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := check(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkArgumentsDecodeOnly(b *testing.B) {
	raw := json.RawMessage(`{"tasks": ["build", "test"], "query": "x", "taskId": "@scope/web#build", "runId": "01H", "force": true, "limit": 10,
		"filter": ["web", "tag:ui"], "format": "json", "scope": {"project": "web", "task": "build"}, "affected": "origin/main"}`)
	b.ReportAllocs()
	for b.Loop() {
		var in testInput
		if err := opkit.DecodeInput(raw, &in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalog is what a configuration reload spends rebuilding the
// tool catalog.
func BenchmarkCatalog(b *testing.B) {
	e := catalogEnv(b)
	b.ReportAllocs()
	for b.Loop() {
		Catalog(e, Config{VX: "vx"})
	}
}
