package watch

import (
	"syscall"
	"testing"
)

// inotify watches are no descriptors: the journal keeps no budget and
// reads no directory for one.
func TestInotifyJournalKeepsNoBudget(t *testing.T) {
	j, _ := newTestJournal(t, 1000)
	if used, max := j.budget.held(); j.budget.counts() || used != 0 || max != 0 {
		t.Errorf("budget %d, held %d; want none with inotify", max, used)
	}
}

// Go's runtime raised the soft open-file limit to the hard one when the
// process started; openFileLimit reads that, as vxd's budget does on macOS.
func TestOpenFileLimitIsRaised(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if got := openFileLimit(); got != lim.Cur || (lim.Max != ^uint64(0) && got < lim.Max-1) {
		t.Errorf("openFileLimit() = %d; the limit is %d, the hard one %d", got, lim.Cur, lim.Max)
	}
}
