package watch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// Where fsnotify watches with kqueue (macOS), a watch is an open
// descriptor: watching a directory opens it and every entry in it
// (O_EVTONLY), and each file made in it later. A workspace with more files
// than the open-file limit would leave vxd unable to accept a connection,
// open the history or start a task. So there vxd's watches (the change
// journal's and the configuration watcher's) share a descriptor budget, a
// quarter of the limit kept free for everything else. The configuration
// watcher comes first; the journal stops (every run then stats every file,
// as without vxd) rather than go past the budget. With inotify (Linux) a
// watch is no descriptor and descriptorBudget answers 0: nothing is
// counted.

// journalDescriptorsEnv sets the budget (1 to the default, where there is
// one): to keep vxd's descriptors fewer on macOS, or to have vxd count its
// watches as kqueue holds them on Linux (the tests of the fallback do).
const journalDescriptorsEnv = "VXD_JOURNAL_DESCRIPTORS"

// journalDescriptors is the budget: journalDescriptorsEnv, else this OS's
// descriptorBudget.
func Descriptors() (int, error) {
	def := descriptorBudget()
	v := os.Getenv(journalDescriptorsEnv)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || (def > 0 && n > def) {
		want := "a positive number"
		if def > 0 {
			want = fmt.Sprintf("1 to %d, three quarters of the open-file limit", def)
		}
		return 0, fmt.Errorf("%s=%q is not a number of descriptors (use %s, or unset it)", journalDescriptorsEnv, v, want)
	}
	return n, nil
}

// budgetShare is the part of the open-file limit vxd's watches may hold:
// the rest stays free for the daemon's sockets, files and tasks.
const budgetShare = 0.75

// budgetForLimit is the descriptor budget under an open-file limit
// (descriptorBudget's answer where watches are descriptors).
func budgetForLimit(limit uint64) int {
	return int(float64(min(limit, 1<<30)) * budgetShare)
}

// Budget is the descriptors vxd's watches may hold together. A nil
// budget, or one of max 0, counts nothing.
type Budget struct {
	mu        sync.Mutex
	max, used int
}

func NewBudget(max int) *Budget { return &Budget{max: max} }

// counts reports whether watches are counted at all.
func (b *Budget) counts() bool { return b != nil && b.max > 0 }

// take counts n more descriptors, or answers *tooLarge (and counts
// nothing) when they would go past the budget.
func (b *Budget) take(n int) error {
	if !b.counts() {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return &tooLarge{need: b.used + n, budget: b.max}
	}
	b.used += n
	return nil
}

// give counts n descriptors fewer.
func (b *Budget) Give(n int) {
	if !b.counts() || n == 0 {
		return
	}
	b.mu.Lock()
	b.used = max(0, b.used-n)
	b.mu.Unlock()
}

// held is the descriptors counted and the budget, for vxd status.
func (b *Budget) held() (used, budget int) {
	if !b.counts() {
		return 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used, b.max
}

// tooLarge is why a watch was refused: it would go past the budget.
type tooLarge struct {
	need, budget int
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("the workspace has more files than vxd may watch within the open-file limit "+
		"(its watches would hold %d descriptors; vxd keeps them to %d, three quarters of the limit): "+
		"raise the hard open-file limit and restart vxd", e.need, e.budget)
}

// errTooLarge reports whether err is the budget running out.
func errTooLarge(err error) bool {
	var t *tooLarge
	return errors.As(err, &t)
}

// watchCost is the descriptors a kqueue watch on dir holds: the directory
// and each of its entries. A directory gone meanwhile costs nothing.
func watchCost(dir string) int {
	f, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	return 1 + len(names)
}

// reserve takes the descriptors a journal watch on dir will hold from the
// budget. Without a budget it reads nothing and costs nothing.
func (j *Journal) reserve(dir string) (int, error) {
	if !j.budget.counts() {
		return 0, nil
	}
	cost := watchCost(dir)
	if err := j.budget.take(cost); err != nil {
		return 0, err
	}
	return cost, nil
}

// countEntry keeps the budget as entries come and go in watched
// directories: kqueue opens each new one too. It answers *tooLarge when a
// new entry goes past the budget.
func (j *Journal) countEntry(ev fsnotify.Event) error {
	if !j.budget.counts() {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	parent := filepath.Dir(ev.Name)
	cost, ok := j.dirs[parent]
	switch {
	case !ok:
	case ev.Has(fsnotify.Create):
		if err := j.budget.take(1); err != nil {
			return err
		}
		j.dirs[parent]++
	case (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && cost > 1:
		j.budget.Give(1)
		j.dirs[parent]--
	}
	return nil
}

// ReserveFirst takes what a watch on dir outside the journal (vxd's
// configuration watcher) holds. That watch comes first: when the budget is
// out, the journal j (nil: none) stops and gives its share back before the
// watch is refused.
func (b *Budget) ReserveFirst(dir string, j *Journal) (int, error) {
	if !b.counts() {
		return 0, nil
	}
	cost := watchCost(dir)
	err := b.take(cost)
	if err != nil && j != nil {
		j.stop(err)
		err = b.take(cost)
	}
	if err != nil {
		return 0, err
	}
	return cost, nil
}
