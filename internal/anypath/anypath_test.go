package anypath

import "testing"

func TestVolume(t *testing.T) {
	for p, want := range map[string]string{
		`C:\ws\a.ts`:                    "C:",
		`c:/ws/a.ts`:                    "c:",
		`C:`:                            "C:",
		`\\server\share\ws\a.ts`:        `\\server\share`,
		`//server/share/ws`:             `\\server\share`,
		`\\server\share`:                `\\server\share`,
		`\\?\C:\very\long`:              "C:",
		`\\?\UNC\server\share\ws\a.ts`:  `\\server\share`,
		`/ws/a.ts`:                      "",
		`src/a.ts`:                      "",
		`1:2`:                           "",
		`\\\x`:                          "",
		`\ws`:                           "",
		`https://example.com/x`:         "",
		`C:relative-to-the-drive's-cwd`: "C:",
	} {
		if got := Volume(p); got != want {
			t.Errorf("Volume(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestIsAbsAndClean(t *testing.T) {
	cases := []struct {
		p     string
		win   bool
		abs   bool
		clean string
	}{
		{`C:\ws\.\src\..\a.ts`, true, true, `C:\ws\a.ts`},
		{`c:/ws//src/a.ts`, true, true, `c:\ws\src\a.ts`},
		{`\\?\C:\ws\a.ts`, true, true, `C:\ws\a.ts`},
		{`\\server\share\ws\..\a`, true, true, `\\server\share\a`},
		{`/abs/./x/../y.go`, true, true, `\abs\y.go`},
		{`C:\`, true, true, `C:\`},
		{`src\a.ts`, true, false, `src\a.ts`},
		{`/abs/./x/../y.go`, false, true, `/abs/y.go`},
		{`./pkg/../z.go`, false, false, `z.go`},
	}
	for _, tc := range cases {
		if got := IsAbs(tc.p, tc.win); got != tc.abs {
			t.Errorf("IsAbs(%q, win=%v) = %v, want %v", tc.p, tc.win, got, tc.abs)
		}
		if got := Clean(tc.p, tc.win); got != tc.clean {
			t.Errorf("Clean(%q, win=%v) = %q, want %q", tc.p, tc.win, got, tc.clean)
		}
	}
}

func TestJoin(t *testing.T) {
	if got := Join(`C:\ws\packages\a`, `src/../lib/x.ts`, true); got != `C:\ws\packages\a\lib\x.ts` {
		t.Errorf("Join = %q", got)
	}
	if got := Join(`/ws/packages/a`, `src/../lib/x.ts`, false); got != `/ws/packages/a/lib/x.ts` {
		t.Errorf("Join = %q", got)
	}
}

func TestRel(t *testing.T) {
	cases := []struct {
		root, p string
		win     bool
		rel     string
		under   bool
	}{
		{`C:\ws`, `C:\ws\packages\a\src\x.ts`, true, "packages/a/src/x.ts", true},
		{`C:\ws`, `c:/WS/packages/a/src/x.ts`, true, "packages/a/src/x.ts", true},
		{`C:\Users\me\ws`, `\\?\C:\Users\me\ws\packages\a\x.ts`, true, "packages/a/x.ts", true},
		{`\\server\share\ws`, `//SERVER/share/ws/a.ts`, true, "a.ts", true},
		{`C:\ws`, `C:\ws`, true, ".", true},
		{`C:\`, `C:\ws\a.ts`, true, "ws/a.ts", true},
		{`C:\ws`, `C:\wsx\a.ts`, true, "", false},
		{`C:\ws`, `D:\ws\a.ts`, true, "", false},
		{`C:\ws`, `C:\ws\..\other\a.ts`, true, "", false},
		{`/ws`, `/ws/packages/a/x.ts`, false, "packages/a/x.ts", true},
		{`/ws`, `/WS/packages/a/x.ts`, false, "", false},
		{`/ws`, `/wsx/a`, false, "", false},
		{`/`, `/a/b`, false, "a/b", true},
	}
	for _, tc := range cases {
		rel, under := Rel(tc.root, tc.p, tc.win)
		if rel != tc.rel || under != tc.under {
			t.Errorf("Rel(%q, %q, win=%v) = %q, %v; want %q, %v", tc.root, tc.p, tc.win, rel, under, tc.rel, tc.under)
		}
	}
}
