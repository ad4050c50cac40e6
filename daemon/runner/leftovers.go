package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/daemon/history"
)

// scratchPattern names a run's scratch store after its process (pid and
// start time), so that a later run can tell one left by a killed run.
func scratchPattern() string {
	pid := os.Getpid()
	return fmt.Sprintf("scratch-%d-%d-", pid, history.ProcStart(pid))
}

// staleTemp is how old a temp file of an atomic write must be to be taken
// for one a killed process left: a writer renames its own within
// milliseconds.
const staleTemp = 10 * time.Minute

// reapLeftovers removes what runs killed before their end (kill -9, a
// crash) left under .vx/: scratch stores (scratch-PID-START-*) and sandbox
// temp dirs (tmp/PID-N) whose process is gone, and the temp files of
// atomic writes (.NAME.tmp*: the stat cache, the listing, the journal
// state, the output stamps, the repeat memo) older than staleTemp. A
// directory whose owner cannot be read from its name, or is alive, is
// left alone.
func reapLeftovers(vx string) {
	temps, _ := filepath.Glob(filepath.Join(vx, ".*.tmp*"))
	for _, f := range temps {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleTemp {
			_ = os.Remove(f)
		}
	}
	for _, pat := range []string{filepath.Join(vx, "scratch-*"), filepath.Join(vx, "tmp", "*")} {
		dirs, _ := filepath.Glob(pat)
		for _, dir := range dirs {
			if pid, start, ok := leftoverOwner(filepath.Base(dir)); ok && ownerGone(pid, start) {
				_ = os.RemoveAll(dir)
			}
		}
	}
}

// reapDead records the runs whose vx process is gone as interrupted (their
// totals from what they recorded) and removes what killed runs left in
// root's .vx/: what a run does before it begins, ordinary or a repeat.
func reapDead(ctx context.Context, hist *history.Store, root string, log zerolog.Logger) error {
	defer reapLeftovers(VXDir(root))
	dead, err := hist.ReapDeadRuns(ctx)
	if len(dead) > 0 {
		log.Info().Strs("runs", dead).Msg("runs whose vx process is gone recorded as interrupted")
	}
	return err
}

// leftoverOwner reads PID[-START]-REST from a leftover's name.
func leftoverOwner(name string) (pid int, start int64, ok bool) {
	parts := strings.Split(strings.TrimPrefix(name, "scratch-"), "-")
	if len(parts) < 2 {
		return 0, 0, false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 {
		return 0, 0, false
	}
	if strings.HasPrefix(name, "scratch-") {
		if len(parts) < 3 {
			return 0, 0, false
		}
		if start, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return pid, start, true
}

// ownerGone reports whether the process is dead, or its pid now belongs to
// a process started at another time (when the start is known).
func ownerGone(pid int, start int64) bool {
	now := history.ProcStart(pid)
	return now == 0 || start != 0 && now != start
}
