package journal

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// askWait bounds the question to vxd: past it the run goes the ordinary way.
const askWait = time.Second

// Base is what a run that may leave a memo learnt before it loaded
// anything: the journal token, and the digest of its request.
type Base struct {
	Epoch       string
	Seq         uint64
	Salt, Input string
	// LinkFree says the memo the run asked with was left by a run that
	// found the workspace read without a symbolic link (no memo is left
	// otherwise), and the journal proves that nothing changed since that
	// memo's token, before which that run looked (Links.Proven).
	LinkFree bool
}

// Answer is what Ask learnt: the memo to repeat (nil: go the ordinary
// way, for Why), the Base an ordinary run saves its memo on (nil when vxd
// gave no token: none can be saved), and whether vxd gave no answer at
// all (Silent: not running after all, or not within a second), in which
// case the run should not ask it again.
type Answer struct {
	Memo   *Memo
	Base   *Base
	Why    string
	Silent bool
	// asked is vxd's answer itself, which the run's files take too
	// (Source): nil when vxd did not answer.
	asked *asked
}

// asked is vxd's answer to a question since the token (epoch, seq).
type asked struct {
	epoch string
	seq   uint64
	ans   *wire.Changes
}

// Ask loads root's memo and asks vxd (src), once for the whole run, what
// changed since the older of the memo's token and the saved state's
// (askToken): the memo is answered when the run asked (environ and parts,
// as memoDigest takes them) may repeat it, and the answer is the one the
// run's files take (Source).
func Ask(ctx context.Context, root string, src ChangeSource, environ []string, parts ...string) Answer {
	m := loadMemo(layout.Repeat(root))
	epoch, seq := askToken(m, root)
	ctx, cancel := context.WithTimeout(ctx, askWait)
	defer cancel()
	ans, err := src(ctx, epoch, seq)
	if err != nil {
		return Answer{Why: "vxd: " + err.Error(), Silent: true}
	}
	q := &asked{epoch: epoch, seq: seq, ans: ans}
	if ans.Version != version.Version || filepath.Clean(ans.Root) != filepath.Clean(root) {
		return Answer{Why: fmt.Sprintf("vxd is version %s for %s", ans.Version, ans.Root), asked: q}
	}
	var base *Base
	if ans.Epoch != "" {
		salt := newSalt()
		base = &Base{Epoch: ans.Epoch, Seq: ans.Seq, Salt: salt, Input: memoDigest(salt, environ, parts...)}
	}
	if m == nil {
		return Answer{Base: base, Why: "no run to repeat", asked: q}
	}
	if base != nil {
		base.LinkFree = m.Root == root && ans.Complete && ans.Epoch == m.Epoch && len(ans.Changed) == 0 && epoch == m.Epoch && seq <= m.Seq
	}
	if why := m.check(root, ans, environ, parts); why != "" {
		return Answer{Base: base, Why: why, asked: q}
	}
	return Answer{Memo: m, Base: base, Why: "nothing changed since run " + m.RunID, asked: q}
}

// askToken is the token the run's one question is asked since: the memo's
// and the saved state's (stateToken) when they are of one epoch, the older
// of them (what changed since the older token is all that changed since
// the newer too, and more: the memo then finds a change and is not
// repeated, the state reads again a file that did not change, never the
// reverse); of two epochs, the memo's (the state's answer is then asked
// again, Source).
func askToken(m *Memo, root string) (string, uint64) {
	epoch, seq := stateToken(layout.JournalState(root), root)
	if m == nil {
		return epoch, seq
	}
	if m.Epoch == epoch {
		return epoch, min(seq, m.Seq)
	}
	return m.Epoch, m.Seq
}

// Source is the question the run's files ask (OpenChanges): answered with
// vxd's answer to Ask wherever it stands for the answer vxd would give (the
// run asks once), asked of src otherwise; src when Ask had no answer.
func (a Answer) Source(src ChangeSource) ChangeSource {
	q := a.asked
	if q == nil || src == nil {
		return src
	}
	return func(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
		if q.serves(epoch, seq) {
			ans := *q.ans
			return &ans, nil
		}
		return src(ctx, epoch, seq)
	}
}

// serves reports whether the answer stands for vxd's answer to a question
// since the token (e, s): a question for the current token alone (e ""),
// one since a token of the epoch asked no older than the one asked and no
// newer than the answer's (every change since it is among the changed
// paths answered), or one since a token of another epoch than the
// answer's (vxd would answer that its epoch ended: the answer proves
// nothing for it either).
func (q *asked) serves(e string, s uint64) bool {
	switch {
	case e == "":
		return true
	case e == q.epoch:
		return s >= q.seq && s <= q.ans.Seq
	default:
		return e != q.ans.Epoch
	}
}

// check says why m cannot be repeated now ("" when it can).
func (m *Memo) check(root string, ans *wire.Changes, environ []string, parts []string) string {
	switch {
	case m.Root != root:
		return "the memo is of " + m.Root
	case ans.Epoch != m.Epoch || !ans.Complete:
		return "the journal cannot vouch: " + ans.Reason
	case len(ans.Changed) > 0:
		return fmt.Sprintf("%d paths changed, %s first", len(ans.Changed), ans.Changed[0])
	case memoDigest(m.Salt, environ, parts...) != m.Input:
		return "another request or environment"
	}
	for _, s := range m.Watched {
		if !s.Holds() {
			return s.Path + " changed"
		}
	}
	return ""
}
