package taskkey_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/taskkey"
)

func base() *taskkey.Components {
	return &taskkey.Components{
		Runner:     taskkey.Version + " vx/0.1.0",
		Global:     map[string]string{"tsconfig.base.json": "g1"},
		Definition: map[string]string{"command": "tsc", "outputs": "dist/**", "env": "NODE_ENV"},
		Env:        map[string]string{"NODE_ENV": "h-prod"},
		Files:      map[string]string{"src/a.ts": "fa", "src/b.ts": "fb", "package.json": "fp"},
		Deps:       map[string]string{"ui#build": "k-ui"},
	}
}

func TestKeyStableAndOrderIndependent(t *testing.T) {
	a := base()
	k := a.Key()
	if len(k) != 32 {
		t.Fatalf("key %q has length %d, want 32", k, len(k))
	}
	if a.Key() != k {
		t.Error("Key is not stable across calls")
	}
	// The same components built in another insertion order.
	b := &taskkey.Components{Runner: a.Runner, Global: map[string]string{}, Definition: map[string]string{}, Env: map[string]string{}, Files: map[string]string{}, Deps: map[string]string{}}
	for _, kv := range [][2]string{{"package.json", "fp"}, {"src/b.ts", "fb"}, {"src/a.ts", "fa"}} {
		b.Files[kv[0]] = kv[1]
	}
	for _, kv := range [][2]string{{"env", "NODE_ENV"}, {"outputs", "dist/**"}, {"command", "tsc"}} {
		b.Definition[kv[0]] = kv[1]
	}
	b.Global["tsconfig.base.json"] = "g1"
	b.Env["NODE_ENV"] = "h-prod"
	b.Deps["ui#build"] = "k-ui"
	if b.Key() != k {
		t.Errorf("key depends on insertion order: %s vs %s", b.Key(), k)
	}
	// Round trip through Encode/Decode keeps the key.
	d, err := taskkey.Decode(a.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if d.Key() != k || !reflect.DeepEqual(d, a) {
		t.Errorf("Decode(Encode()) changed the components: %+v", d)
	}
	if _, err := taskkey.Decode([]byte("{not json")); err == nil {
		t.Error("Decode of garbage succeeded")
	}
}

func TestKeyChangesWithEveryComponent(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *taskkey.Components)
	}{
		{"runner", func(c *taskkey.Components) { c.Runner += "x" }},
		{"global input content", func(c *taskkey.Components) { c.Global["tsconfig.base.json"] = "g2" }},
		{"global input added", func(c *taskkey.Components) { c.Global["babel.config.js"] = "g3" }},
		{"definition command", func(c *taskkey.Components) { c.Definition["command"] = "tsc -b" }},
		{"definition field added", func(c *taskkey.Components) { c.Definition["passEnv"] = "HOME" }},
		{"env value hash", func(c *taskkey.Components) { c.Env["NODE_ENV"] = "h-dev" }},
		{"env unset vs set", func(c *taskkey.Components) { c.Env["NODE_ENV"] = "" }},
		{"env name added", func(c *taskkey.Components) { c.Env["CI"] = "" }},
		{"file content", func(c *taskkey.Components) { c.Files["src/a.ts"] = "fa2" }},
		{"file removed", func(c *taskkey.Components) { delete(c.Files, "src/b.ts") }},
		{"file renamed", func(c *taskkey.Components) { c.Files["src/c.ts"] = c.Files["src/b.ts"]; delete(c.Files, "src/b.ts") }},
		{"upstream key", func(c *taskkey.Components) { c.Deps["ui#build"] = "k-ui2" }},
		{"upstream added", func(c *taskkey.Components) { c.Deps["utils#build"] = "k-u" }},
		{"value moved between components", func(c *taskkey.Components) { delete(c.Files, "package.json"); c.Global["package.json"] = "fp" }},
	}
	seen := map[string]string{base().Key(): "base"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := base()
			tc.mutate(c)
			k := c.Key()
			if other, dup := seen[k]; dup {
				t.Errorf("key %s equals the key of %q", k, other)
			}
			seen[k] = tc.name
		})
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *taskkey.Components)
		check  func(t *testing.T, d *taskkey.Diff)
		own    bool
	}{
		{
			name:   "nothing moved",
			mutate: func(c *taskkey.Components) {},
			check: func(t *testing.T, d *taskkey.Diff) {
				if !d.Empty() {
					t.Errorf("diff not empty: %+v", d)
				}
			},
		},
		{
			name: "files added, removed and changed",
			mutate: func(c *taskkey.Components) {
				c.Files["src/new.ts"] = "fn"
				delete(c.Files, "src/b.ts")
				c.Files["src/a.ts"] = "fa2"
			},
			check: func(t *testing.T, d *taskkey.Diff) {
				want := taskkey.SetDiff{Added: []string{"src/new.ts"}, Removed: []string{"src/b.ts"}, Changed: []string{"src/a.ts"}}
				if !reflect.DeepEqual(d.Files, want) {
					t.Errorf("Files = %+v, want %+v", d.Files, want)
				}
			},
			own: true,
		},
		{
			name: "global inputs",
			mutate: func(c *taskkey.Components) {
				c.Global["tsconfig.base.json"] = "g2"
			},
			check: func(t *testing.T, d *taskkey.Diff) {
				if !eq(d.Global.Changed, []string{"tsconfig.base.json"}) {
					t.Errorf("Global = %+v", d.Global)
				}
			},
			own: true,
		},
		{
			name: "env names, never values",
			mutate: func(c *taskkey.Components) {
				c.Env["NODE_ENV"] = "h-dev"
				c.Env["API_URL"] = "h-url"
			},
			check: func(t *testing.T, d *taskkey.Diff) {
				if !eq(d.Env.Changed, []string{"NODE_ENV"}) || !eq(d.Env.Added, []string{"API_URL"}) {
					t.Errorf("Env = %+v", d.Env)
				}
				b, _ := json.Marshal(d)
				for _, v := range []string{"h-dev", "h-prod", "h-url"} {
					if strings.Contains(string(b), v) {
						t.Errorf("diff JSON carries the env value hash %q: %s", v, b)
					}
				}
			},
			own: true,
		},
		{
			name: "definition fields with before and after",
			mutate: func(c *taskkey.Components) {
				c.Definition["command"] = "tsc -b"
				delete(c.Definition, "outputs")
				c.Definition["passEnv"] = "HOME"
			},
			check: func(t *testing.T, d *taskkey.Diff) {
				want := []taskkey.Change{
					{Name: "command", Before: "tsc", After: "tsc -b"},
					{Name: "outputs", Before: "dist/**", After: ""},
					{Name: "passEnv", Before: "", After: "HOME"},
				}
				if !reflect.DeepEqual(d.Definition, want) {
					t.Errorf("Definition = %+v, want %+v", d.Definition, want)
				}
			},
			own: true,
		},
		{
			name: "runner",
			mutate: func(c *taskkey.Components) {
				c.Runner = "vx-key/2 vx/0.2.0"
			},
			check: func(t *testing.T, d *taskkey.Diff) {
				if d.Runner == nil || d.Runner.Before != base().Runner || d.Runner.After != "vx-key/2 vx/0.2.0" {
					t.Errorf("Runner = %+v", d.Runner)
				}
			},
			own: true,
		},
		{
			name: "upstream only",
			mutate: func(c *taskkey.Components) {
				c.Deps["ui#build"] = "k-ui2"
				c.Deps["utils#build"] = "k-u"
			},
			check: func(t *testing.T, d *taskkey.Diff) {
				want := taskkey.SetDiff{Added: []string{"utils#build"}, Removed: []string{}, Changed: []string{"ui#build"}}
				if !reflect.DeepEqual(d.Upstream, want) {
					t.Errorf("Upstream = %+v, want %+v", d.Upstream, want)
				}
				if d.Empty() {
					t.Error("Empty() = true with a moved upstream")
				}
			},
			own: false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prev, cur := base(), base()
			tc.mutate(cur)
			d := taskkey.Compare(prev, cur)
			tc.check(t, d)
			if got := d.OwnInputsMoved(); got != tc.own {
				t.Errorf("OwnInputsMoved = %v, want %v", got, tc.own)
			}
		})
	}
}

func TestCompareNilMaps(t *testing.T) {
	// Components decoded from an older record may lack maps.
	prev := &taskkey.Components{Runner: "r"}
	cur := base()
	cur.Runner = "r"
	d := taskkey.Compare(prev, cur)
	if len(d.Files.Added) != 3 || len(d.Upstream.Added) != 1 {
		t.Errorf("diff against empty components = %+v", d)
	}
	b, _ := json.Marshal(d)
	if strings.Contains(string(b), "null") {
		t.Errorf("diff JSON has null lists: %s", b)
	}
}

func eq(a, b []string) bool { return reflect.DeepEqual(a, b) }
