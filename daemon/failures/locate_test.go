package failures

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/internal/testtree"
)

// locateCase runs Locate over a fixture in a fresh workspace. "$ROOT" in the
// fixture and relative File values in want stand for the workspace root.
type locateCase struct {
	name    string
	fixture string            // under testdata/
	dir     string            // task dir, relative to the root
	files   map[string]string // created under the root before Locate runs
	want    []Location
}

func runLocate(t *testing.T, cases []locateCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Write(t, root, tc.files)
			raw, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(tc.fixture)))
			if err != nil {
				t.Fatal(err)
			}
			out := strings.ReplaceAll(string(raw), "$ROOT", root)
			want := make([]Location, len(tc.want))
			for i, l := range tc.want {
				if !filepath.IsAbs(l.File) {
					l.File = filepath.Join(root, filepath.FromSlash(l.File))
				}
				l.Message = strings.ReplaceAll(l.Message, "$ROOT", root)
				want[i] = l
			}
			if len(want) == 0 {
				want = nil
			}
			got := Locate(out, filepath.Join(root, filepath.FromSlash(tc.dir)), root)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Locate(%s):\ngot  %s\nwant %s", tc.fixture, dump(got), dump(want))
			}
		})
	}
}

func dump(locs []Location) string {
	b, _ := json.MarshalIndent(locs, "", "  ")
	return string(b)
}

const goMod = "module example.com/demo\n\ngo 1.26\n"

func TestLocateGo(t *testing.T) {
	const indexPanic = "panic: runtime error: index out of range [5] with length 3"
	runLocate(t, []locateCase{{
		name:    "build",
		fixture: "go/build.txt",
		want: []Location{
			{File: "pkg/bar/bar.go", Line: 4, Col: 9, Message: "undefined: y", Tool: "go"},
			{File: "pkg/bar/bar.go", Line: 4, Col: 13, Message: "undefined: undefinedThing", Tool: "go"},
		},
	}, {
		name:    "vet",
		fixture: "go/vet.txt",
		want: []Location{
			{File: "pkg/foo/foo.go", Line: 10, Col: 14, Message: `fmt.Printf format %d has arg "x" of wrong type string`, Tool: "go"},
			{File: "pkg/foo/bad.go", Line: 3, Col: 8, Message: `could not import missing/pkg (invalid package name: "")`, Tool: "go"},
		},
	}, {
		// Test logs name a base name; the FAIL line names the package.
		name:    "test in package dir from module root",
		fixture: "go/test.txt",
		files:   map[string]string{"go.mod": goMod},
		want: []Location{
			{File: "pkg/foo/foo_test.go", Line: 9, Message: "expected 4, got 3", Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 12, Message: "math is broken:", Tool: "go"},
			{File: "pkg/foo/foo.go", Line: 6, Message: indexPanic, Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 17, Message: indexPanic, Tool: "go"},
		},
	}, {
		name:    "test run from a subdirectory finds go.mod above",
		fixture: "go/test.txt",
		dir:     "pkg/foo",
		files:   map[string]string{"go.mod": goMod},
		want: []Location{
			{File: "pkg/foo/foo_test.go", Line: 9, Message: "expected 4, got 3", Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 12, Message: "math is broken:", Tool: "go"},
			{File: "pkg/foo/foo.go", Line: 6, Message: indexPanic, Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 17, Message: indexPanic, Tool: "go"},
		},
	}, {
		name:    "test module listed in go.work",
		fixture: "go/test.txt",
		files: map[string]string{
			"go.work":       "go 1.26\n\nuse (\n\t./demo // the service\n\t./tools\n)\n",
			"demo/go.mod":   goMod,
			"tools/go.mod":  "module example.com/tools\n",
			"unrelated.txt": "",
		},
		want: []Location{
			{File: "demo/pkg/foo/foo_test.go", Line: 9, Message: "expected 4, got 3", Tool: "go"},
			{File: "demo/pkg/foo/foo_test.go", Line: 12, Message: "math is broken:", Tool: "go"},
			{File: "pkg/foo/foo.go", Line: 6, Message: indexPanic, Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 17, Message: indexPanic, Tool: "go"},
		},
	}, {
		// Without a go.mod the package cannot be placed; dir is the guess.
		name:    "test without go.mod",
		fixture: "go/test.txt",
		dir:     "pkg/foo",
		want: []Location{
			{File: "pkg/foo/foo_test.go", Line: 9, Message: "expected 4, got 3", Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 12, Message: "math is broken:", Tool: "go"},
			{File: "pkg/foo/foo.go", Line: 6, Message: indexPanic, Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 17, Message: indexPanic, Tool: "go"},
		},
	}, {
		// -v streams t.Log of passing tests too; TestPass's log is dropped.
		name:    "test -v",
		fixture: "go/test_v.txt",
		files:   map[string]string{"go.mod": goMod},
		want: []Location{
			{File: "pkg/foo/foo_test.go", Line: 9, Message: "expected 4, got 3", Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 12, Message: "math is broken:", Tool: "go"},
			{File: "pkg/foo/foo.go", Line: 6, Message: indexPanic, Tool: "go"},
			{File: "pkg/foo/foo_test.go", Line: 17, Message: indexPanic, Tool: "go"},
		},
	}, {
		// Only the goroutines of the tests said to be running count.
		name:    "test timeout",
		fixture: "go/timeout.txt",
		files:   map[string]string{"go.mod": goMod},
		want: []Location{
			{File: "pkg/baz/baz_test.go", Line: 9, Message: "panic: test timed out after 1s", Tool: "go"},
			{File: "pkg/baz/baz_test.go", Line: 8, Message: "panic: test timed out after 1s", Tool: "go"},
		},
	}})
}

func TestLocateTSC(t *testing.T) {
	const (
		ts2322 = "TS2322: Type 'string' is not assignable to type 'number'."
		ts2741 = "TS2741: Property 'title' is missing in type '{}' but required in type 'Props'."
	)
	runLocate(t, []locateCase{{
		name:    "plain",
		fixture: "tsc/plain.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/api/client.ts", Line: 12, Col: 5, Message: ts2322, Tool: "tsc"},
			{File: "web/src/api/client.ts", Line: 30, Col: 17, Message: "TS2339: Property 'data' does not exist on type 'Response'.", Tool: "tsc"},
			{File: "web/src/components/App.tsx", Line: 8, Col: 3, Message: ts2741, Tool: "tsc"},
		},
	}, {
		// The related-information span and the summary table are not errors.
		name:    "pretty",
		fixture: "tsc/pretty.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/api/client.ts", Line: 12, Col: 5, Message: ts2322, Tool: "tsc"},
			{File: "web/src/components/App.tsx", Line: 8, Col: 3, Message: ts2741, Tool: "tsc"},
		},
	}})
}

func TestLocateESLint(t *testing.T) {
	runLocate(t, []locateCase{{
		// The warning is dropped: there are errors.
		name:    "stylish",
		fixture: "eslint/stylish.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/api/client.js", Line: 3, Col: 10, Message: "'fetchJSON' is defined but never used (no-unused-vars)", Tool: "eslint"},
			{File: "web/src/api/client.js", Line: 40, Col: 1, Message: "Parsing error: Unexpected token )", Tool: "eslint"},
			{File: "web/src/util.js", Line: 7, Col: 14, Message: "Expected '===' and instead saw '==' (eqeqeq)", Tool: "eslint"},
		},
	}, {
		name:    "stylish warnings only",
		fixture: "eslint/stylish_warnings.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/util.js", Line: 12, Col: 5, Message: "Unexpected console statement (no-console)", Tool: "eslint"},
		},
	}, {
		name:    "unix",
		fixture: "eslint/unix.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/api/client.js", Line: 3, Col: 10, Message: "'fetchJSON' is defined but never used. (no-unused-vars)", Tool: "eslint"},
			{File: "web/src/util.js", Line: 40, Col: 1, Message: "Parsing error: Unexpected token )", Tool: "eslint"},
			{File: "web/src/legacy.js", Line: 9, Col: 2, Message: "Missing semicolon.", Tool: "eslint"},
		},
	}, {
		name:    "compact",
		fixture: "eslint/compact.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/api/client.js", Line: 3, Col: 10, Message: "'fetchJSON' is defined but never used. (no-unused-vars)", Tool: "eslint"},
			{File: "web/src/util.js", Line: 7, Col: 14, Message: "Expected '===' and instead saw '=='. (eqeqeq)", Tool: "eslint"},
		},
	}})
}

func TestLocateJest(t *testing.T) {
	const divides = "math › divides: TypeError: Cannot read properties of undefined (reading 'value')"
	runLocate(t, []locateCase{{
		// console.log's frame, node_modules, node internals and URLs are skipped.
		name:    "relative frames",
		fixture: "jest/fail.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/math.test.ts", Line: 11, Col: 17, Message: "math › adds: expect(received).toBe(expected) // Object.is equality", Tool: "jest"},
			{File: "web/src/math.ts", Line: 4, Col: 22, Message: divides, Tool: "jest"},
			{File: "web/src/math.test.ts", Line: 16, Col: 12, Message: divides, Tool: "jest"},
			{File: "web/src/broken.test.ts", Line: 1, Col: 1, Message: "Test suite failed to run: Cannot find module './missing' from 'src/broken.test.ts'", Tool: "jest"},
		},
	}, {
		name:    "absolute frames",
		fixture: "jest/abs.txt",
		want: []Location{
			{File: "packages/core/src/parse.test.js", Line: 22, Col: 30, Message: "parse › rejects empty input: expect(received).toThrow()", Tool: "jest"},
			{File: "packages/core/src/helpers.js", Line: 3, Col: 9, Message: "parse › rejects empty input: expect(received).toThrow()", Tool: "jest"},
		},
	}})
}

func TestLocateVitest(t *testing.T) {
	const adds = "math > adds: AssertionError: expected 3 to be 4 // Object.is equality"
	runLocate(t, []locateCase{{
		name:    "frames",
		fixture: "vitest/fail.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/math.test.ts", Line: 11, Col: 17, Message: adds, Tool: "vitest"},
			{File: "web/src/helpers.ts", Line: 3, Col: 9, Message: adds, Tool: "vitest"},
		},
	}, {
		// A suite that failed to load has only its FAIL header.
		name:    "suite failed to load",
		fixture: "vitest/suite.txt",
		dir:     "web",
		want: []Location{
			{File: "web/src/config.test.ts", Message: "Error: Failed to load url ./missing (resolved id: ./missing) in $ROOT/web/src/config.test.ts. Does the file exist?", Tool: "vitest"},
		},
	}})
}

func TestLocatePython(t *testing.T) {
	const notFound = "FileNotFoundError: [Errno 2] No such file or directory: 'missing.txt'"
	runLocate(t, []locateCase{{
		name:    "pytest long",
		fixture: "pytest/long.txt",
		want: []Location{
			{File: "tests/test_calc.py", Line: 8, Message: "assert 2.0 == 3", Tool: "pytest"},
			{File: "tests/test_io.py", Line: 5, Message: notFound, Tool: "pytest"},
			{File: "app/io.py", Line: 3, Message: notFound, Tool: "pytest"},
		},
	}, {
		// Frames in the standard library and site-packages are skipped.
		name:    "pytest short with collection error",
		fixture: "pytest/short.txt",
		want: []Location{
			{File: "tests/test_broken.py", Line: 1, Message: "ModuleNotFoundError: No module named 'nope'", Tool: "pytest"},
			{File: "tests/test_cart.py", Line: 14, Message: "TypeError: unsupported operand type(s) for +: 'int' and 'str'", Tool: "pytest"},
		},
	}, {
		name:    "pytest summary only",
		fixture: "pytest/summary_only.txt",
		want: []Location{
			{File: "tests/test_api.py", Message: "TestUsers::test_create[admin]: AssertionError: status 500", Tool: "pytest"},
		},
	}, {
		name:    "traceback",
		fixture: "python/traceback.txt",
		want: []Location{
			{File: "main2.py", Line: 2, Message: "ZeroDivisionError: division by zero", Tool: "python"},
			{File: "app/calc.py", Line: 6, Message: "ZeroDivisionError: division by zero", Tool: "python"},
			{File: "app/calc.py", Line: 2, Message: "ZeroDivisionError: division by zero", Tool: "python"},
		},
	}, {
		name:    "traceback through the standard library",
		fixture: "python/stdlib.txt",
		want: []Location{
			{File: "main.py", Line: 3, Message: "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)", Tool: "python"},
		},
	}})
}

func TestLocateRust(t *testing.T) {
	runLocate(t, []locateCase{{
		// The note's span and the warning are not reported.
		name:    "build",
		fixture: "rust/build.txt",
		want: []Location{
			{File: "src/lib.rs", Line: 9, Col: 18, Message: "error[E0308]: mismatched types", Tool: "rustc"},
			{File: "src/lib.rs", Line: 10, Col: 5, Message: "error[E0061]: this function takes 1 argument but 0 arguments were supplied", Tool: "rustc"},
		},
	}, {
		// cargo prints paths from the workspace root; the member's dir does
		// not have crates/rs/src/lib.rs, the root does.
		name:    "build in a workspace member",
		fixture: "rust/build.txt",
		dir:     "crates/rs",
		files:   map[string]string{"src/lib.rs": ""},
		want: []Location{
			{File: "src/lib.rs", Line: 9, Col: 18, Message: "error[E0308]: mismatched types", Tool: "rustc"},
			{File: "src/lib.rs", Line: 10, Col: 5, Message: "error[E0061]: this function takes 1 argument but 0 arguments were supplied", Tool: "rustc"},
		},
	}, {
		name:    "build where dir has the file too",
		fixture: "rust/build.txt",
		dir:     "crates/rs",
		files:   map[string]string{"src/lib.rs": "", "crates/rs/src/lib.rs": ""},
		want: []Location{
			{File: "crates/rs/src/lib.rs", Line: 9, Col: 18, Message: "error[E0308]: mismatched types", Tool: "rustc"},
			{File: "crates/rs/src/lib.rs", Line: 10, Col: 5, Message: "error[E0061]: this function takes 1 argument but 0 arguments were supplied", Tool: "rustc"},
		},
	}, {
		name:    "test panics, old and new format",
		fixture: "rust/test.txt",
		want: []Location{
			{File: "src/lib.rs", Line: 16, Col: 10, Message: "index out of bounds: the len is 0 but the index is 3", Tool: "rust"},
			{File: "src/lib.rs", Line: 10, Col: 9, Message: "assertion failed: `(left == right)`", Tool: "rust"},
		},
	}, {
		// Backtrace frames repeat the panic's place.
		name:    "test panics with backtrace",
		fixture: "rust/test_backtrace.txt",
		want: []Location{
			{File: "src/lib.rs", Line: 16, Col: 10, Message: "index out of bounds: the len is 0 but the index is 3", Tool: "rust"},
			{File: "src/lib.rs", Line: 10, Col: 9, Message: "assertion `left == right` failed", Tool: "rust"},
		},
	}})
}

func TestLocateCC(t *testing.T) {
	const undeclared = "error: ‘y’ undeclared (first use in this function)"
	runLocate(t, []locateCase{{
		// Warnings and notes give way to the error.
		name:    "gcc",
		fixture: "cc/gcc.txt",
		want: []Location{
			{File: "src/x.c", Line: 5, Col: 9, Message: undeclared, Tool: "cc"},
		},
	}, {
		name:    "gcc coloured",
		fixture: "cc/gcc_color.txt",
		dir:     "c",
		want: []Location{
			{File: "c/c/src/x.c", Line: 5, Col: 9, Message: undeclared, Tool: "cc"},
		},
	}, {
		name:    "gcc warnings only",
		fixture: "cc/gcc_warnings.txt",
		want: []Location{
			{File: "src/w.c", Line: 1, Col: 22, Message: "warning: unused variable ‘unused’ [-Wunused-variable]", Tool: "cc"},
		},
	}, {
		// ld with debug info names an absolute line; without, a section,
		// which is skipped; lld's reference repeats the same place.
		name:    "linker",
		fixture: "cc/ld.txt",
		want: []Location{
			{File: "src/l.c", Line: 2, Message: "undefined reference to `helper'", Tool: "ld"},
		},
	}})
}

func TestLocateNoise(t *testing.T) {
	runLocate(t, []locateCase{{
		name:    "mixed noise",
		fixture: "noise/mixed.txt",
		files:   map[string]string{"go.mod": goMod},
	}})
	for _, in := range []string{"", "\n\n", "PASS\nok  \texample.com/demo\t0.01s\n", "\x1b[32m✓\x1b[0m all good\r\n"} {
		if got := Locate(in, "/w", "/w"); got != nil {
			t.Errorf("Locate(%q) = %v, want nil", in, got)
		}
	}
}

func TestLocateOutput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		out  string
		want []Location
	}{{
		name: "ansi and carriage returns",
		out:  "\x1b[2K\rbuilding 10%\rbuilding 100%\r\n\x1b]8;;file:///x\x1b\\\x1b[1msrc/a.c:3:1:\x1b[0m \x1b[31merror:\x1b[0m boom\r\n",
		want: []Location{{File: filepath.Join(dir, "src/a.c"), Line: 3, Col: 1, Message: "error: boom", Tool: "cc"}},
	}, {
		name: "absolute and dotted paths are cleaned",
		out:  "/abs/./x/../y.go:1:2: bad\n./pkg/../z.go:3:4: worse\n",
		want: []Location{
			{File: filepath.Clean("/abs/y.go"), Line: 1, Col: 2, Message: "bad", Tool: "go"},
			{File: filepath.Join(dir, "z.go"), Line: 3, Col: 4, Message: "worse", Tool: "go"},
		},
	}, {
		name: "duplicates collapse in order",
		out:  "b.go:2:1: second\na.go:1:1: first\nb.go:2:1: again\nb.go:2:2: other column\n",
		want: []Location{
			{File: filepath.Join(dir, "b.go"), Line: 2, Col: 1, Message: "second", Tool: "go"},
			{File: filepath.Join(dir, "a.go"), Line: 1, Col: 1, Message: "first", Tool: "go"},
			{File: filepath.Join(dir, "b.go"), Line: 2, Col: 2, Message: "other column", Tool: "go"},
		},
	}, {
		name: "generic tools",
		out:  "app/models.py:12: error: Incompatible types in assignment\napp/models.py:13: note: see here\nMain.java:7: error: ';' expected\nrun.sh:3:5: warning: quote this [SC2086]\n",
		want: []Location{
			{File: filepath.Join(dir, "app/models.py"), Line: 12, Message: "error: Incompatible types in assignment"},
			{File: filepath.Join(dir, "Main.java"), Line: 7, Message: "error: ';' expected"},
		},
	}, {
		name: "lld and prefixed ld",
		out: "ld.lld: error: undefined symbol: helper\n>>> referenced by l.c:2 (/src/l.c:2)\n>>>               /tmp/l-5f2a1c.o:(main)\n" +
			"/usr/bin/ld: main.o: src/m.c:9: multiple definition of `x'; a.o:src/a.c:1: first defined here\n",
		want: []Location{
			{File: filepath.Clean("/src/l.c"), Line: 2, Message: "undefined symbol: helper", Tool: "ld"},
			{File: filepath.Join(dir, "src/m.c"), Line: 9, Message: "multiple definition of `x'; a.o:src/a.c:1: first defined here", Tool: "ld"},
		},
	}, {
		// -trimpath frames name import paths; the go.mod in dir maps them.
		name: "go panic built with -trimpath",
		out: "panic: boom\n\ngoroutine 1 [running]:\nruntime.throw({0x1, 0x2})\n\truntime/panic.go:1101 +0x48\n" +
			"example.com/demo/pkg/foo.Index(...)\n\texample.com/demo/pkg/foo/foo.go:6\nmain.main()\n\texample.com/demo/main.go:5 +0x1d\nexit status 2\n",
		want: []Location{
			{File: filepath.Join(dir, "pkg/foo/foo.go"), Line: 6, Message: "panic: boom", Tool: "go"},
			{File: filepath.Join(dir, "main.go"), Line: 5, Message: "panic: boom", Tool: "go"},
		},
	}, {
		// A module path without a dot looks like the standard library; its
		// files being in the workspace says otherwise.
		name: "go panic in a dotless module",
		out: "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nvx/cmd.Run(...)\n\t" + filepath.Join(dir, "cmd/run.go") + ":12 +0x2a\n" +
			"sync.(*WaitGroup).Wait(0x0)\n\t/usr/local/go/src/sync/waitgroup.go:118 +0x60\ngithub.com/dep/x.F()\n\t/root/go/pkg/mod/github.com/dep/x@v1.0.0/x.go:3 +0x1\n",
		want: []Location{
			{File: filepath.Join(dir, "cmd/run.go"), Line: 12, Message: "fatal error: all goroutines are asleep - deadlock!", Tool: "go"},
		},
	}}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Locate(tc.out, dir, dir)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tc.want))
			}
		})
	}
}

func TestLocateCap(t *testing.T) {
	var b strings.Builder
	for i := 80; i > 0; i-- {
		fmt.Fprintf(&b, "x.go:%d:1: e\n", i)
	}
	got := Locate(b.String(), "/w", "/w")
	if len(got) != maxLocations {
		t.Fatalf("len = %d, want %d", len(got), maxLocations)
	}
	if got[0].Line != 80 || got[maxLocations-1].Line != 31 {
		t.Errorf("kept lines %d..%d, want the first printed, 80..31", got[0].Line, got[maxLocations-1].Line)
	}
}

// BenchmarkLocate measures Locate over an excerpt-sized mix of every fixture.
func BenchmarkLocate(b *testing.B) {
	var all strings.Builder
	for all.Len() < 64<<10 {
		files, _ := filepath.Glob("testdata/*/*.txt")
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			all.Write(raw)
		}
	}
	out := all.String()
	dir := b.TempDir()
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		Locate(out, dir, dir)
	}
}
