package opkit

import (
	"errors"
	"strings"
	"testing"
)

// TestDecodeInputRefusesBadText: NUL, bytes that are not UTF-8 and
// unpaired surrogates are refused at any depth, naming the argument;
// text that only looks like them (an escaped backslash, U+FFFD itself, a
// surrogate pair, plain non-ASCII) is kept.
func TestDecodeInputRefusesBadText(t *testing.T) {
	type inner struct {
		Task string `json:"task,omitempty"`
	}
	type input struct {
		Name  string   `json:"name,omitempty"`
		Tasks []string `json:"tasks,omitempty"`
		Scope *inner   `json:"scope,omitempty"`
	}
	for _, tc := range []struct{ raw, arg string }{
		{`{"name":"a\u0000b"}`, "name"},
		{"{\"name\":\"a\xffb\"}", "name"},
		{`{"name":"a\udc00"}`, "name"},
		{`{"name":"a\ud800"}`, "name"},
		{`{"name":"a\ud800\u0041"}`, "name"},
		{`{"tasks":["ok","b\u0000"]}`, "tasks[1]"},
		{"{\"scope\":{\"task\":\"\xc3\"}}", "scope.task"},
	} {
		var in input
		err := DecodeInput([]byte(tc.raw), &in)
		var r *Refusal
		if !errors.As(err, &r) || r.Arg != tc.arg || !strings.Contains(r.Error(), `"`+tc.arg+`"`) {
			t.Errorf("%q: %v; want a refusal of %s", tc.raw, err, tc.arg)
		}
	}
	for raw, want := range map[string]string{
		`{"name":"a\\u0000"}`:     `a\u0000`,
		`{"name":"\ufffd"}`:       "\ufffd",
		`{"name":"\ud83d\ude00"}`: "😀",
		`{"name":"héllo 😀"}`:      "héllo 😀",
	} {
		var in input
		if err := DecodeInput([]byte(raw), &in); err != nil || in.Name != want {
			t.Errorf("%s: %q, %v; want %q", raw, in.Name, err, want)
		}
	}
	if err := CheckText("q", "fine \ufffd"); err != nil {
		t.Errorf("CheckText refused U+FFFD: %v", err)
	}
	for _, s := range []string{"a\x00", "a\xff"} {
		if err := CheckText("q", s); err == nil || !strings.Contains(err.Error(), `"q"`) {
			t.Errorf("CheckText(%q): %v", s, err)
		}
	}
}
