package failures

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	const limit = 64 << 10
	ascii := func(n int) []byte { return bytes.Repeat([]byte("abcdefg\n"), n/8+1)[:n] }
	cases := []struct {
		name      string
		out       []byte
		truncated bool
		head      int // bytes of out kept at the start
		tail      int // bytes of out kept at the end
	}{
		{name: "empty", out: nil},
		{name: "short", out: []byte("ok\n")},
		{name: "exactly 64 KiB", out: ascii(limit)},
		{name: "64 KiB + 1", out: ascii(limit + 1), truncated: true, head: 8 << 10, tail: 56 << 10},
		{name: "1 MiB", out: ascii(1 << 20), truncated: true, head: 8 << 10, tail: 56 << 10},
		// "é" is 2 bytes, "€" 3: the 8 KiB cut lands inside a rune and
		// backs off to its start; the tail cut moves forward past it.
		{name: "utf-8 head cut", out: []byte(strings.Repeat("a", 8<<10-1) + "é" + string(ascii(limit))), truncated: true, head: 8<<10 - 1, tail: 56 << 10},
		{name: "utf-8 tail cut", out: append(ascii(limit-(56<<10)), []byte(strings.Repeat("€", 56<<10/3+1))...), truncated: true, head: 8 << 10, tail: 56<<10 - 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text, truncated := Excerpt(tc.out)
			if truncated != tc.truncated {
				t.Fatalf("truncated = %v, want %v", truncated, tc.truncated)
			}
			if !tc.truncated {
				if text != string(tc.out) {
					t.Fatalf("output changed: got %d bytes, want %d", len(text), len(tc.out))
				}
				return
			}
			elided := len(tc.out) - tc.head - tc.tail
			marker := fmt.Sprintf("[... %d bytes elided ...]\n", elided)
			head, tail := string(tc.out[:tc.head]), string(tc.out[len(tc.out)-tc.tail:])
			sep := "\n"
			if strings.HasSuffix(head, "\n") {
				sep = ""
			}
			if want := head + sep + marker + tail; text != want {
				i := 0
				for i < len(text) && i < len(want) && text[i] == want[i] {
					i++
				}
				t.Fatalf("excerpt differs at byte %d (len %d, want %d): got %q", i, len(text), len(want), text[max(0, i-20):min(len(text), i+40)])
			}
			if utf8.Valid(tc.out) && !utf8.ValidString(text) {
				t.Errorf("excerpt of valid UTF-8 is not valid UTF-8")
			}
		})
	}
}

// TestExcerptBinary checks that invalid UTF-8 does not move a cut further
// than a rune's length.
func TestExcerptBinary(t *testing.T) {
	out := bytes.Repeat([]byte{0x80}, 100<<10) // continuation bytes only
	text, truncated := Excerpt(out)
	if !truncated {
		t.Fatal("not truncated")
	}
	if n := strings.Count(text, "\x80"); n < 64<<10-6 {
		t.Errorf("kept %d bytes, want about 64 KiB", n)
	}
}

// TestBrief: a failure's brief excerpt fits briefMax, keeps the start and
// the end, and leaves short output whole.
func TestBrief(t *testing.T) {
	if got, cut := Brief("short\n"); got != "short\n" || cut {
		t.Fatalf("short output: %q %v", got, cut)
	}
	long := "START\n" + strings.Repeat("noise line\n", 10000) + "src/a.go:3:1: undefined: x\n"
	got, cut := Brief(long)
	if !cut || len(got) > briefMax || !strings.HasPrefix(got, "START\n") || !strings.HasSuffix(got, "undefined: x\n") || !strings.Contains(got, "bytes elided") {
		t.Fatalf("brief of %d bytes: %d bytes, cut %v, %q…", len(long), len(got), cut, got[:40])
	}
}

// TestBriefDropsColour: a page and the platform show the brief excerpt as
// text, where a terminal's colour codes are noise (and six bytes each in
// JSON): they are dropped, the text kept.
func TestBriefDropsColour(t *testing.T) {
	got, _ := Brief("\x1b[1m\x1b[31merror\x1b[0m TS2322: \x1b[36msrc/a.ts\x1b[0m:3:7\n")
	if got != "error TS2322: src/a.ts:3:7\n" {
		t.Fatalf("Brief kept the colour codes: %q", got)
	}
}
