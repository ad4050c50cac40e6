package plugins

import (
	"reflect"
	"testing"
)

// TestSeenMatchKeepsGlobListsApart: the matches one load shares are kept
// by glob list, never confusing two lists whose joined text is alike (a
// glob may hold any character doublestar accepts, a NUL included): a
// plugin declaring one odd glob must not take another plugin's matches
// from it.
func TestSeenMatchKeepsGlobListsApart(t *testing.T) {
	files := []string{"p/x.json", "p/y.json"}
	odd := []string{"**/x.json\x00**/y.json"}
	two := []string{"**/x.json", "**/y.json"}
	s := &Seen{}
	if got := s.match(odd, files); len(got) != 0 {
		t.Fatalf("the odd glob matched %q", got)
	}
	if got := s.match(two, files); !reflect.DeepEqual(got, files) {
		t.Fatalf("after the odd glob, %q matched %q, want %q", two, got, files)
	}
}
