package journal

import (
	"context"
	"testing"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// The run's one answer stands for the answer vxd would give its files
// only where no change can be missing from it: a question for the token
// alone, one since a token of the epoch asked, no older than the token
// asked and no newer than the answer, or one since another epoch than the
// answer's. Any other question is asked of vxd.
func TestSourceStandsOnlyForWhatVXDWouldAnswer(t *testing.T) {
	ans := &wire.Changes{Epoch: "e1", Seq: 9, Complete: true, Changed: []string{"a"}}
	a := Answer{asked: &asked{epoch: "e1", seq: 5, ans: ans}}
	for _, c := range []struct {
		epoch  string
		seq    uint64
		served bool
	}{
		{"", 0, true},
		{"e1", 5, true},
		{"e1", 7, true},
		{"e1", 9, true},
		{"e1", 3, false},  // older than asked: changes 4 and 5 are not in the answer
		{"e1", 10, false}, // ahead of the answer
		{"e0", 2, true},   // an ended epoch: vxd would prove nothing either
	} {
		asks := 0
		src := func(context.Context, string, uint64) (*wire.Changes, error) {
			asks++
			return &wire.Changes{Epoch: "e1", Seq: 9}, nil
		}
		got, err := a.Source(src)(context.Background(), c.epoch, c.seq)
		if err != nil {
			t.Fatal(err)
		}
		if served := asks == 0; served != c.served {
			t.Errorf("since %s/%d: taken from the run's answer %v; want %v", c.epoch, c.seq, served, c.served)
		}
		if c.served && (got.Epoch != ans.Epoch || !got.Complete || len(got.Changed) != 1) {
			t.Errorf("since %s/%d: %+v; want the run's answer", c.epoch, c.seq, got)
		}
	}
	src := func(context.Context, string, uint64) (*wire.Changes, error) { return nil, nil }
	if Answer.Source(Answer{}, src) == nil {
		t.Error("without an answer the run's files lost the question")
	}
}

// The one question is asked since the older of the memo's token and the
// saved state's when they are of one epoch, since the memo's otherwise.
func TestAskTokenIsTheOlder(t *testing.T) {
	root := t.TempDir()
	memo := func(epoch string, seq uint64) *Memo { return &Memo{Epoch: epoch, Seq: seq} }
	check := func(name string, m *Memo, wantEpoch string, wantSeq uint64) {
		t.Helper()
		if e, s := askToken(m, root); e != wantEpoch || s != wantSeq {
			t.Errorf("%s: asked since %s/%d; want %s/%d", name, e, s, wantEpoch, wantSeq)
		}
	}
	check("nothing saved", nil, "", 0)
	check("a memo alone", memo("e1", 7), "e1", 7)
	if err := saveJournal(layout.JournalState(root), root, &journalState{epoch: "e1", seq: 5}, nil); err != nil {
		t.Fatal(err)
	}
	check("a state alone", nil, "e1", 5)
	check("a newer memo", memo("e1", 7), "e1", 5)
	check("an older memo", memo("e1", 3), "e1", 3)
	check("a memo of another epoch", memo("e0", 9), "e0", 9)
}
