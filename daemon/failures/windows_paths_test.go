package failures

import (
	"reflect"
	"testing"
)

// TestLocateWindowsPaths: what compilers print on Windows (drive letters,
// backslashes, forward slashes, a drive letter in another case, the
// file:/// form) is located by Windows rules on any OS, and Relative
// makes each file workspace-relative with slashes, as on Linux; a frame
// in node_modules stays out, whichever separator it has.
func TestLocateWindowsPaths(t *testing.T) {
	root := `C:\Users\me\ws`
	dir := root + `\packages\a`
	out := "" +
		`C:\Users\me\ws\packages\a\src\x.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.` + "\n" +
		`src\y.ts(4,1): error TS2304: Cannot find name 'z'.` + "\n" +
		`c:/users/ME/ws/packages/a/src/z.ts:1:5: 'q' is defined but never used. [Error/no-unused-vars]` + "\n" +
		`C:\Users\me\ws\packages\a\src\m.c:9:3: error: expected ';' before '}' token` + "\n" +
		`.\main.go:12:5: undefined: x` + "\n" +
		`D:\elsewhere\lib.c:2:1: error: outside the workspace` + "\n" +
		"  ● suite › case\n\n    expect(received).toBe(expected)\n\n" +
		"      at Object.<anonymous> (file:///C:/Users/me/ws/packages/a/src/t.test.mjs:3:7)\n" +
		`      at f (C:\Users\me\ws\node_modules\dep\i.js:1:1)` + "\n"
	got := Locate(out, dir, root)
	want := []Location{
		{File: `C:\Users\me\ws\packages\a\src\x.ts`, Line: 3, Col: 7, Message: "TS2322: Type 'string' is not assignable to type 'number'.", Tool: "tsc"},
		{File: `C:\Users\me\ws\packages\a\src\y.ts`, Line: 4, Col: 1, Message: "TS2304: Cannot find name 'z'.", Tool: "tsc"},
		{File: `c:\users\ME\ws\packages\a\src\z.ts`, Line: 1, Col: 5, Message: "'q' is defined but never used. (no-unused-vars)", Tool: "eslint"},
		{File: `C:\Users\me\ws\packages\a\src\m.c`, Line: 9, Col: 3, Message: "error: expected ';' before '}' token", Tool: "cc"},
		{File: `C:\Users\me\ws\packages\a\main.go`, Line: 12, Col: 5, Message: "undefined: x", Tool: "go"},
		{File: `D:\elsewhere\lib.c`, Line: 2, Col: 1, Message: "error: outside the workspace", Tool: "cc"},
		{File: `C:\Users\me\ws\packages\a\src\t.test.mjs`, Line: 3, Col: 7, Message: "suite › case: expect(received).toBe(expected)", Tool: "jest"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Locate of Windows output:\ngot  %s\nwant %s", dump(got), dump(want))
	}
	rel := []string{"packages/a/src/x.ts", "packages/a/src/y.ts", "packages/a/src/z.ts", "packages/a/src/m.c", "packages/a/main.go", `D:\elsewhere\lib.c`, "packages/a/src/t.test.mjs"}
	for i, l := range got {
		if r := Relative(root, l.File); r != rel[i] {
			t.Errorf("Relative(%q, %q) = %q, want %q", root, l.File, r, rel[i])
		}
	}
}

// TestRelative: a located file under the root becomes a slash path
// relative to it, on Unix and Windows roots alike; others are kept.
func TestRelative(t *testing.T) {
	for _, tc := range []struct{ root, file, want string }{
		{"/ws", "/ws/packages/a/src/x.ts", "packages/a/src/x.ts"},
		{"/ws", "/other/x.ts", "/other/x.ts"},
		{"/ws", "/ws", "/ws"},
		{`\\server\share\ws`, `\\server\share\ws\apps\web\page.tsx`, "apps/web/page.tsx"},
		{`C:\ws`, `\\?\C:\ws\apps\web\page.tsx`, "apps/web/page.tsx"},
	} {
		if got := Relative(tc.root, tc.file); got != tc.want {
			t.Errorf("Relative(%q, %q) = %q, want %q", tc.root, tc.file, got, tc.want)
		}
	}
}
