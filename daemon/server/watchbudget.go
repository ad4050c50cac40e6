package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fsnotify/fsnotify"
)

// Where fsnotify watches with kqueue (macOS), a watch is an open
// descriptor: watching a directory opens it and every entry in it
// (O_EVTONLY), and each file made in it later. A workspace with more files
// than the open-file limit would leave vxd unable to accept a connection,
// open the history or start a task. So there the journal keeps a
// descriptor budget, a quarter of the limit kept free for everything
// else, and stops (every run then stats every file, as without vxd)
// rather than go past it. With inotify (Linux) a watch is no descriptor
// and descriptorBudget answers 0: no budget is kept.

// journalDescriptorsEnv sets the budget (1 to the default, where there is
// one): to keep vxd's descriptors fewer on macOS, or to have vxd count its
// watches as kqueue holds them on Linux (the tests of the fallback do).
const journalDescriptorsEnv = "VXD_JOURNAL_DESCRIPTORS"

// journalDescriptors is the budget: journalDescriptorsEnv, else this OS's
// descriptorBudget.
func journalDescriptors() (int, error) {
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

// budgetShare is the part of the open-file limit the journal's watches may
// hold: the rest stays free for the daemon's sockets, files and tasks.
const budgetShare = 0.75

// budgetForLimit is the journal's descriptor budget under an open-file
// limit (descriptorBudget's answer where watches are descriptors).
func budgetForLimit(limit uint64) int {
	return int(float64(min(limit, 1<<30)) * budgetShare)
}

// tooLarge is why the journal stopped at its descriptor budget.
type tooLarge struct {
	need, budget int
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("the workspace has more files than the change journal may watch within the open-file limit "+
		"(watching it needs more than %d descriptors; the journal keeps to %d, three quarters of the limit): "+
		"raise the hard open-file limit and restart vxd", e.need, e.budget)
}

// errTooLarge reports whether err is the journal's budget running out.
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

// reserve takes the descriptors a watch on dir will hold from the budget,
// or answers *tooLarge when they would go past it. Without a budget it
// reads nothing and costs nothing.
func (j *journal) reserve(dir string) (int, error) {
	j.mu.Lock()
	budget := j.maxFDs
	j.mu.Unlock()
	if budget == 0 {
		return 0, nil
	}
	cost := watchCost(dir)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fds+cost > j.maxFDs {
		return 0, &tooLarge{need: j.fds + cost, budget: j.maxFDs}
	}
	j.fds += cost
	return cost, nil
}

// entryCame counts an entry made in a watched directory: kqueue opens it
// too. It answers *tooLarge when that goes past the budget.
func (j *journal) entryCame(name string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	parent := filepath.Dir(name)
	if _, ok := j.dirs[parent]; !ok || j.maxFDs == 0 {
		return nil
	}
	j.dirs[parent]++
	j.fds++
	if j.fds > j.maxFDs {
		return &tooLarge{need: j.fds, budget: j.maxFDs}
	}
	return nil
}

// entryWent gives back the descriptor of an entry gone from a watched
// directory.
func (j *journal) entryWent(name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	parent := filepath.Dir(name)
	if c, ok := j.dirs[parent]; ok && c > 1 && j.maxFDs > 0 {
		j.dirs[parent]--
		j.fds--
	}
}

// countEntry keeps the budget as entries come and go in watched
// directories.
func (j *journal) countEntry(ev fsnotify.Event) error {
	switch {
	case ev.Has(fsnotify.Create):
		return j.entryCame(ev.Name)
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		j.entryWent(ev.Name)
	}
	return nil
}
