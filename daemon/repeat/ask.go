package repeat

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/vzn/vx/daemon/hashing"
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
}

// Ask loads root's memo and asks vxd (src) what changed since its token:
// the memo is answered when the run asked (environ and parts, as memoDigest
// takes them) may repeat it.
func Ask(ctx context.Context, root string, src hashing.ChangeSource, environ []string, parts ...string) Answer {
	m := loadMemo(layout.Repeat(root))
	epoch, seq := "", uint64(0)
	if m != nil {
		epoch, seq = m.Epoch, m.Seq
	}
	ctx, cancel := context.WithTimeout(ctx, askWait)
	defer cancel()
	ans, err := src(ctx, epoch, seq)
	if err != nil {
		return Answer{Why: "vxd: " + err.Error(), Silent: true}
	}
	if ans.Version != version.Version || filepath.Clean(ans.Root) != filepath.Clean(root) {
		return Answer{Why: fmt.Sprintf("vxd is version %s for %s", ans.Version, ans.Root)}
	}
	var base *Base
	if ans.Epoch != "" {
		salt := newSalt()
		base = &Base{Epoch: ans.Epoch, Seq: ans.Seq, Salt: salt, Input: memoDigest(salt, environ, parts...)}
	}
	if m == nil {
		return Answer{Base: base, Why: "no run to repeat"}
	}
	if why := m.check(root, ans, environ, parts); why != "" {
		return Answer{Base: base, Why: why}
	}
	return Answer{Memo: m, Base: base, Why: "nothing changed since run " + m.RunID}
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
