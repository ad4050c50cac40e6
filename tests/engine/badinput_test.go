//go:build !windows

package engine_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMalformedConfigNamesFileLineColumn: the column must point into the
// offending token: [colMin, colMax] is its span (1-based).
func TestMalformedConfigNamesFileLineColumn(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name           string
		file, text     string
		line           int
		colMin, colMax int
	}{
		{
			name: "stray bracket", file: "vx.workspace.json",
			text: "{\n  \"projects\": [\"packages/*\", \"apps/*\"],\n  \"tasks\": {\n    \"build\": { \"dependsOn\": [\"^build\"] ]\n  }\n}\n",
			line: 4, colMin: 40, colMax: 40,
		},
		{
			name: "unknown field", file: "vx.workspace.json",
			text: "{\n  \"projects\": [\"packages/*\", \"apps/*\"],\n  \"taks\": {}\n}\n",
			line: 3, colMin: 3, colMax: 8,
		},
		{
			name: "wrong type", file: "vx.workspace.json",
			text: "{\n  \"projects\": [\"packages/*\", \"apps/*\"],\n  \"workers\": \"four\",\n  \"tasks\": {}\n}\n",
			line: 3, colMin: 14, colMax: 19,
		},
		{
			name: "after a comment", file: "vx.workspace.json",
			text: "// comment\n{ /* a\n block */ \"projects\": [\"apps/*\"] \"env\": []\n}\n",
			line: 3, colMin: 34, colMax: 34,
		},
		{
			name: "project file", file: "apps/web/vx.project.json",
			text: "{ \"tags\": [\n  \"frontend\",\n  oops\n] }\n",
			line: 3, colMin: 3, colMax: 6,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "basic")
			writeFiles(t, ws, map[string]string{tc.file: tc.text})
			r := vx(t, ws, nil, "run", "build")
			if r.Code == 0 {
				t.Fatalf("a malformed %s was accepted\n%s", tc.file, r)
			}
			re := regexp.MustCompile(regexp.QuoteMeta(tc.file) + `:(\d+):(\d+)`)
			m := re.FindStringSubmatch(r.Stderr)
			if m == nil {
				t.Fatalf("the error does not name %s:LINE:COL\n%s", tc.file, r)
			}
			line, _ := strconv.Atoi(m[1])
			col, _ := strconv.Atoi(m[2])
			if line != tc.line || col < tc.colMin || col > tc.colMax {
				t.Errorf("error at %d:%d, want line %d, column in [%d, %d]\n%s", line, col, tc.line, tc.colMin, tc.colMax, r.Stderr)
			}
			if r.Stdout != "" {
				t.Errorf("stdout is not empty: %q", r.Stdout)
			}
		})
	}
}

func TestGraphErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string
		args  []string
		want  []string // substrings of stderr
	}{
		{
			name: "unknown task lists close names",
			args: []string{"run", "biuld"},
			want: []string{`"biuld"`, "build"},
		},
		{
			name: "unknown dependsOn project",
			files: map[string]string{"vx.workspace.json": `{"projects": ["packages/*", "apps/*"],
				"tasks": {"build": {"dependsOn": ["^build"]}, "test": {"command": "true", "dependsOn": ["nosuch#build"]}}}`},
			args: []string{"run", "test"},
			want: []string{"#test", "nosuch#build"},
		},
		{
			name: "unknown dependsOn task",
			files: map[string]string{"vx.workspace.json": `{"projects": ["packages/*", "apps/*"],
				"tasks": {"build": {"dependsOn": ["^biuld"]}}}`},
			args: []string{"run", "build"},
			want: []string{"#build", "^biuld", "build"},
		},
		{
			name: "task cycle",
			files: map[string]string{"vx.workspace.json": `{"projects": ["packages/*", "apps/*"],
				"tasks": {"build": {}, "lint": {"command": "true", "dependsOn": ["check"]}, "check": {"command": "true", "dependsOn": ["lint"]}}}`},
			args: []string{"run", "lint", "--filter", "core"},
			want: []string{"cycle", "core#lint → core#check → core#lint"},
		},
		{
			name: "project cycle",
			files: map[string]string{"packages/core/package.json": `{"name": "core", "dependencies": {"web": "*"},
				"scripts": {"build": "true"}}`},
			args: []string{"run", "build"},
			want: []string{"cycle", "core → web → util → core"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "basic")
			writeFiles(t, ws, tc.files)
			r := vx(t, ws, nil, tc.args...)
			if r.Code == 0 {
				t.Fatalf("want an error\n%s", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr lacks %q\n%s", w, r)
				}
			}
			if exists(filepath.Join(ws, ".vx", "vx.db")) {
				t.Errorf("a refused command line recorded a run")
			}
		})
	}
}

func TestCorruptCacheEntryIsAMiss(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		corrupt func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", func(b []byte) []byte { return nil }},
		{"byte flipped in the middle", func(b []byte) []byte { b[len(b)/2] ^= 0xff; return b }},
		{"byte flipped at the end", func(b []byte) []byte { b[len(b)-10] ^= 0x01; return b }},
		{"byte flipped in the header", func(b []byte) []byte { b[9] ^= 0x01; return b }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspace(t, "basic")
			cold, _ := runJSON(t, ws, nil, 0, "build")
			want := snapshot(t, ws, basicDists...)
			key := cold.keys()["util#build"]

			var entries []string
			filepath.WalkDir(filepath.Join(ws, ".vx", "cache"), func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.Contains(d.Name(), key) {
					entries = append(entries, p)
				}
				return nil
			})
			if len(entries) == 0 {
				t.Fatalf("no file under .vx/cache is named for util#build's key %s", key)
			}
			for _, p := range entries {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, tc.corrupt(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			removeAll(t, ws, "packages/util/dist")

			s, r := runJSON(t, ws, nil, 0, "build")
			for _, row := range s.Tasks {
				wantCache := "hit"
				if row.TaskID == "util#build" {
					wantCache = "miss"
				}
				if row.Cache != wantCache || row.Status != "passed" {
					t.Errorf("%s: cache %s status %s, want %s passed", row.TaskID, row.Cache, row.Status, wantCache)
				}
			}
			warned := false
			for _, w := range s.Warnings {
				warned = warned || (strings.Contains(w, "util#build") && strings.Contains(w, key))
			}
			if !warned || !strings.Contains(r.Stderr, "warning") {
				t.Errorf("no warning names util#build and its entry: %q\n%s", s.Warnings, r)
			}
			if got := snapshot(t, ws, basicDists...); !mapsEqual(got, want) {
				t.Errorf("outputs after the miss = %v, want %v", got, want)
			}

			// The entry was replaced: the next run restores it.
			removeAll(t, ws, "packages/util/dist")
			again, _ := runJSON(t, ws, nil, 0, "build")
			if row := again.row(t, "util#build"); row.Cache != "hit" {
				t.Errorf("util#build: cache %s after the entry was replaced, want hit", row.Cache)
			}
			if len(again.Warnings) != 0 {
				t.Errorf("warnings after the entry was replaced: %q", again.Warnings)
			}
			if got := snapshot(t, ws, basicDists...); !mapsEqual(got, want) {
				t.Errorf("restored outputs = %v, want %v", got, want)
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

// TestOutputsMatchingNothingWarnOnce: a task whose outputs match no file
// at all (a hit would restore nothing) gets one warning naming its globs;
// one glob of several matching nothing is no warning, as in turbo (nextra
// lists "dist/**", ".next/**" and "public/_pagefind/**" for every build,
// and each package writes one of them).
func TestOutputsMatchingNothingWarnOnce(t *testing.T) {
	t.Parallel()
	ws := workspace(t, "basic")
	warned := func(outputs string) ([]string, result) {
		writeFiles(t, ws, map[string]string{"vx.workspace.json": `{"projects": ["packages/*", "apps/*"],
			"tasks": {"build": {"dependsOn": ["^build"], "outputs": ` + outputs + `}}}`})
		s, r := runJSON(t, ws, nil, 0, "build", "--filter", "core")
		var said []string
		for _, w := range s.Warnings {
			if strings.Contains(w, "matched no file") {
				said = append(said, w)
			}
		}
		return said, r
	}
	if said, r := warned(`["dist/**", "build/**", ".next/**"]`); len(said) != 0 || strings.Contains(r.Stderr, "matched no file") {
		t.Errorf("dist/** matched, yet warnings %q\n%s", said, r)
	}
	said, r := warned(`["build/**", ".next/**"]`)
	want := `core#build: outputs "build/**", ".next/**" matched no file`
	if len(said) != 1 || !strings.Contains(said[0], want) {
		t.Errorf("summary warnings %q: want one, %q", said, want)
	}
	if strings.Count(r.Stderr, "warning: "+want) != 1 {
		t.Errorf("stderr: want the warning once\n%s", r)
	}
}
