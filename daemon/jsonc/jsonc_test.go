package jsonc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestParseJSONC moved here from daemon/migrate with its cases unchanged.
func TestParseJSONC(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int // of the error; 0 when it parses
	}{
		{"comments and trailing commas", "{\n  // c\n  \"a\": [1, 2,], /* b */\n  \"b\": {\"c\": true,},\n}", 0, 0},
		{"missing comma", "{\n  \"a\": 1\n  \"b\": 2\n}", 3, 3},
		{"unterminated string", "{\"a\": \"x\n}", 1, 7},
		{"unterminated comment", "{ /* x", 1, 3},
		{"trailing text", "{} {}", 1, 4},
		{"empty", "  // nothing\n", 1, 1},
		{"bad literal", "{\"a\": tru}", 1, 7},
		{"columns count characters", "{\"é\": 1,\n \"ü\" 2}", 2, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse([]byte(tc.src))
			if tc.line == 0 {
				if err != nil {
					t.Fatal(err)
				}
				var v any
				if err := doc.Root().Decode(&v); err != nil {
					t.Fatal(err)
				}
				return
			}
			se, ok := err.(*Error)
			if !ok {
				t.Fatalf("err = %v, want a syntax error", err)
			}
			line, col := Position([]byte(tc.src), se.Off)
			if line != tc.line || col != tc.col {
				t.Errorf("error %q at %d:%d, want %d:%d", se.Msg, line, col, tc.line, tc.col)
			}
			if se.Line != line || se.Col != col {
				t.Errorf("error %q carries %d:%d, its offset is at %d:%d", se.Msg, se.Line, se.Col, line, col)
			}
		})
	}
}

func TestStandardKeepsOffsets(t *testing.T) {
	src := "// head\n{\n  \"a\": [1, 2,], /* x */\n  \"é\": {\"c\": \"// not a comment\",},\n}"
	doc, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Standard) != len(src) {
		t.Fatalf("standard text is %d bytes, source %d", len(doc.Standard), len(src))
	}
	var v map[string]any
	if err := json.Unmarshal(doc.Standard, &v); err != nil {
		t.Fatalf("standard text is not JSON: %v\n%s", err, doc.Standard)
	}
	paths := doc.Root().Paths()
	got := map[string]string{}
	for _, p := range paths {
		got[p.Path] = src[p.Off:p.End]
	}
	want := map[string]string{"": src[strings.Index(src, "{"):], "a": "[1, 2,]", "a[1]": "2", "é.c": `"// not a comment"`}
	for path, text := range want {
		if got[path] != text {
			t.Errorf("%q spans %q, want %q", path, got[path], text)
		}
	}
	at, ok := Innermost(paths, strings.Index(src, "not"))
	if !ok || at.Path != "é.c" || at.Key != "c" || src[at.KeyOff:at.KeyOff+3] != `"c"` {
		t.Errorf("innermost at the string = %+v", at)
	}
}

func TestPositionCountsCharacters(t *testing.T) {
	src := []byte("{\n  \"日本\": x}")
	_, err := Parse(src)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *Error", err)
	}
	if e.Line != 2 || e.Col != 9 {
		t.Errorf("error at %d:%d, want 2:9 (characters, not bytes): %v", e.Line, e.Col, e)
	}
	if line, col := Position(src, len(src)); line != 2 || col != 11 {
		t.Errorf("end at %d:%d, want 2:11", line, col)
	}
}

func TestLineCommentAtEndOfFile(t *testing.T) {
	doc, err := Parse([]byte(`{"a": 1} // no newline after me`))
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.Root().Get("a"); got == nil || got.Str != "1" {
		t.Errorf("a = %+v", got)
	}
}

func TestNestingIsBounded(t *testing.T) {
	deep := strings.Repeat("[", 1_000_000)
	_, err := Parse([]byte(deep))
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Msg, "nesting deeper") || e.Off != maxDepth {
		t.Fatalf("err = %v, want a nesting error at offset %d", err, maxDepth)
	}
	// Brackets in strings and comments do not nest.
	src := `{"a": "` + strings.Repeat("[", 2*maxDepth) + `" /* ` + strings.Repeat("{", 2*maxDepth) + ` */} // [[[[`
	if _, err := Parse([]byte(src)); err != nil {
		t.Errorf("brackets inside a string or comment: %v", err)
	}
	ok := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Errorf("%d levels: %v", maxDepth, err)
	}
}

func TestDecodePlain(t *testing.T) {
	type cfg struct {
		A int      `json:"a"`
		L []string `json:"l"`
	}
	tests := []struct {
		name   string
		src    string
		strict bool
		ok     bool
	}{
		{"plain", `{"a": 1, "l": ["x"]}`, true, true},
		{"trailing space", "{\"a\": 1}\n\n", true, true},
		{"a comment", "{\"a\": 1} // c", true, false},
		{"a trailing comma", `{"a": 1,}`, true, false},
		{"text after", `{"a": 1} {}`, true, false},
		{"unknown key, strict", `{"a": 1, "b": 2}`, true, false},
		{"unknown key, lenient", `{"a": 1, "b": 2}`, false, true},
		{"wrong type after a good field", `{"l": ["x"], "a": "1"}`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c cfg
			err := DecodePlain([]byte(tc.src), &c, tc.strict)
			if (err == nil) != tc.ok {
				t.Fatalf("DecodePlain = %v, want ok %v", err, tc.ok)
			}
			if err != nil && (c.A != 0 || c.L != nil) {
				t.Errorf("a refused decode left %+v, want the zero value", c)
			}
			if err == nil && c.A != 1 {
				t.Errorf("decoded %+v", c)
			}
		})
	}
}

func TestSyntaxErrorsDoNotQuoteValues(t *testing.T) {
	for _, src := range []string{
		`{"token": hunter2secret}`,
		`{"token": "hunter2secret\q"}`,
		"{\"token\": \"hunter2secret\x01\"}",
	} {
		_, err := Parse([]byte(src))
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%q: err = %v, want *Error", src, err)
		}
		if strings.Contains(e.Msg, "hunter2") {
			t.Errorf("%q: message %q quotes the value", src, e.Msg)
		}
		if e.Line != 1 || e.Col != 11 {
			t.Errorf("%q: at %d:%d, want 1:11", src, e.Line, e.Col)
		}
	}
}
