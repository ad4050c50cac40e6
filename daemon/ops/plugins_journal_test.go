package ops_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/journal"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/runner"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/internal/testtree"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// fakeJournal answers a run's question as vxd's journal would: epoch e1,
// complete for a token of it, the paths set since the last question
// changed.
type fakeJournal struct {
	root    string
	mu      sync.Mutex
	seq     uint64
	changed []string
	asks    int
}

func (j *fakeJournal) source() journal.ChangeSource {
	return func(_ context.Context, epoch string, _ uint64) (*wire.Changes, error) {
		j.mu.Lock()
		defer j.mu.Unlock()
		j.seq++
		j.asks++
		ans := &wire.Changes{Root: j.root, Version: version.Version, Epoch: "e1", Seq: j.seq}
		if epoch == "e1" {
			ans.Complete, ans.Changed = true, j.changed
		} else {
			ans.Reason = "no token was given"
		}
		return ans, nil
	}
}

// journalRun is vx run ref as the command line makes it with vxd up (the
// journal j answering), in an environment of its own (round), so that it
// never repeats an earlier run; it answers the loaded model. The run asks
// the journal once, its plugins' files included.
func journalRun(t *testing.T, root string, j *fakeJournal, round int) *workspace.Model {
	t.Helper()
	j.mu.Lock()
	j.asks = 0
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		defer j.mu.Unlock()
		if j.asks != 1 {
			t.Errorf("round %d asked vxd %d times; want once", round, j.asks)
		}
	}()
	src := j.source()
	ctx := context.Background()
	env := []string{"PATH=" + os.Getenv("PATH"), fmt.Sprintf("ROUND=%d", round)}
	in := ops.ExecuteInput{Options: runner.Options{Selection: wire.Selection{Tasks: []string{"ref"}}, Command: []string{"run", "ref"}, Environ: env}}
	a := ops.NewAhead(root, root, src)
	defer a.Close()
	if sum, err := a.Repeat(ctx, in, func() (runner.Output, func()) { return runner.Output{}, func() {} }); err != nil || sum != nil {
		t.Fatalf("round %d repeated (%v): %+v", round, err, sum)
	}
	a.Start(ctx, zerolog.Nop(), true)
	m, err := workspace.LoadReusingListed(root, a.Listing())
	if err != nil {
		t.Fatal(err)
	}
	a.Complete(&in)
	e := ops.NewEnv(root, m, nil, env)
	defer e.Close()
	if sum, err := ops.Execute(ctx, e, in); err != nil || !sum.OK {
		t.Fatalf("round %d: %v %+v", round, err, sum)
	}
	return m
}

// TestJournalServesPluginFiles: with vxd up, a run's plugins take their
// matched files from its change journal. A file the journal proves
// unchanged is not looked at: touched behind the journal's back (its
// stamp changed, its content not), its stored record stands, where a run
// without the journal would stat it and store its new stamp. A file the
// journal reports changed is read, and the plugin asked again.
func TestJournalServesPluginFiles(t *testing.T) {
	root := pluginWorkspace(t)
	testtree.Write(t, root, map[string]string{
		"vx.workspace.json": `{"projects":["packages/*"],"plugins":[{"plugin":"./tools/ref.mjs","options":{"log":"starts.log"}}]}`,
	})
	// As vxd leaves it: its discovery file says a daemon is up.
	testtree.Write(t, root, map[string]string{".vx/daemon/vxd.json": "{}"})
	if layout.Discovery(root) != filepath.Join(root, ".vx", "daemon", "vxd.json") {
		t.Fatalf("the discovery file is %s", layout.Discovery(root))
	}
	// A file's run hash is kept with its record only once it has not
	// changed for two seconds (a moment's edit may fall between the two
	// reads): the tree ages that long.
	time.Sleep(2100 * time.Millisecond)
	j := &fakeJournal{root: root}
	starts := func() int {
		b, _ := os.ReadFile(filepath.Join(root, "starts.log"))
		return strings.Count(string(b), "\n")
	}
	journalRun(t, root, j, 1) // asks the plugin, records the files
	journalRun(t, root, j, 2) // the journal holds their hashes now
	stores, _ := filepath.Glob(filepath.Join(root, ".vx", "plugins", "*.json"))
	if len(stores) != 1 {
		t.Fatalf("stores: %v", stores)
	}
	before, err := os.ReadFile(stores[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(before, []byte("packages/a/vx-ref.json\t")) {
		t.Fatalf("the store does not record the matched file:\n%s", before)
	}
	n := starts()

	ref := filepath.Join(root, "packages", "a", "vx-ref.json")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(ref, later, later); err != nil {
		t.Fatal(err)
	}
	journalRun(t, root, j, 3)
	if after, _ := os.ReadFile(stores[0]); !bytes.Equal(after, before) {
		t.Errorf("a file the journal proved unchanged was looked at: the store changed\nbefore %s\nafter  %s", before, after)
	}
	if starts() != n {
		t.Errorf("a run the journal proved nothing changed for started the plugin")
	}

	testtree.Write(t, root, map[string]string{"packages/a/vx-ref.json": `{"command":"echo edited","outputs":["out/**"]}`})
	j.mu.Lock()
	j.changed = []string{"packages/a/vx-ref.json"}
	j.mu.Unlock()
	m := journalRun(t, root, j, 4)
	if def, ok := m.Resolve("a", "ref"); !ok || def.Command != "echo edited" {
		t.Errorf("after an edit the journal reported, a's ref is %v %+v", ok, def)
	}
	if starts() == n {
		t.Errorf("an edit the journal reported did not ask the plugin again")
	}
}
