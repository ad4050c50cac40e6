package journal

import (
	"context"
	"testing"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// A run may skip the symbolic-link check (Base.LinkFree) only when a memo
// is there, which a run leaves only after finding no link, and the
// journal proves nothing at all changed since that memo's token, of its
// epoch: any change, another epoch or an incomplete answer is a check.
func TestLinkFreeOnlyWhenNothingChangedSinceTheMemo(t *testing.T) {
	root := t.TempDir()
	ask := func(ans wire.Changes) *Base {
		t.Helper()
		ans.Version, ans.Root = version.Version, root
		src := func(context.Context, string, uint64) (*wire.Changes, error) { a := ans; return &a, nil }
		a := Ask(context.Background(), root, src, []string{"A=1"}, "tasks", "build")
		if a.Base == nil {
			t.Fatalf("no base for %+v (%s)", ans, a.Why)
		}
		return a.Base
	}
	if b := ask(wire.Changes{Epoch: "e1", Seq: 7, Complete: true}); b.LinkFree {
		t.Error("without a memo the link check was taken as done")
	}
	m := &Memo{Version: version.Version, Root: root, Epoch: "e1", Seq: 5, Salt: "s", Input: "other request",
		RunID: "r1", Tasks: []Task{{ID: "a#build"}}}
	if err := SaveMemo(layout.Repeat(root), m); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		ans  wire.Changes
		want bool
	}{
		{"nothing changed", wire.Changes{Epoch: "e1", Seq: 9, Complete: true}, true},
		{"a path changed", wire.Changes{Epoch: "e1", Seq: 9, Complete: true, Changed: []string{"packages/b"}}, false},
		{"another epoch", wire.Changes{Epoch: "e2", Seq: 1, Complete: true}, false},
		{"not proven", wire.Changes{Epoch: "e1", Seq: 9, Reason: "too many paths"}, false},
	} {
		if b := ask(c.ans); b.LinkFree != c.want {
			t.Errorf("%s: LinkFree %v; want %v", c.name, b.LinkFree, c.want)
		}
	}
}
