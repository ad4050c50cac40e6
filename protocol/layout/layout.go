// Package layout names what vx keeps under a workspace's .vx/ directory, so
// vx, vxd and the client agree on every path.
package layout

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
)

// DirName is the state directory at a workspace root; file listings and
// hashing skip it.
const DirName = ".vx"

// Dir is ROOT/.vx.
func Dir(root string) string { return filepath.Join(root, DirName) }

// Cache is the content-addressed output cache, ROOT/.vx/cache.
func Cache(root string) string { return filepath.Join(root, DirName, "cache") }

// History is the SQLite run history, ROOT/.vx/vx.db.
func History(root string) string { return filepath.Join(root, DirName, "vx.db") }

// StatCache is the hasher's stat cache, ROOT/.vx/statcache.
func StatCache(root string) string { return filepath.Join(root, DirName, "statcache") }

// Locks holds the per-task locks of running tasks, ROOT/.vx/locks.
func Locks(root string) string { return filepath.Join(root, DirName, "locks") }

// Daemon is vxd's state directory, ROOT/.vx/daemon (0700).
func Daemon(root string) string { return filepath.Join(root, DirName, "daemon") }

// Discovery is the daemon's discovery file, ROOT/.vx/daemon/vxd.json (0600):
// a hint a client checks by asking the daemon for its status.
func Discovery(root string) string { return filepath.Join(Daemon(root), "vxd.json") }

// DaemonLock is the lock a daemon holds for its life, ROOT/.vx/daemon/vxd.lock.
func DaemonLock(root string) string { return filepath.Join(Daemon(root), "vxd.lock") }

// DaemonLog is the daemon's log, ROOT/.vx/daemon/vxd.log.
func DaemonLog(root string) string { return filepath.Join(Daemon(root), "vxd.log") }

// DaemonOut is where a daemon a client started writes its output before
// its log is open, ROOT/.vx/daemon/vxd.out.
func DaemonOut(root string) string { return filepath.Join(Daemon(root), "vxd.out") }

// Events holds the events of runs started outside the daemon, one JSON
// lines file per run, ROOT/.vx/daemon/events.
func Events(root string) string { return filepath.Join(Daemon(root), "events") }

// OutputStamps records what each task's outputs were when vx last wrote
// them, ROOT/.vx/outputs.
func OutputStamps(root string) string { return filepath.Join(root, DirName, "outputs") }

// OutputStampsSeen marks which output stamps a run with vxd's journal
// verified, and at which token, ROOT/.vx/outputs.seen.
func OutputStampsSeen(root string) string { return filepath.Join(root, DirName, "outputs.seen") }

// OutputStampsJSON is where vx kept the output stamps before
// OutputStamps, as JSON: read once, when there is no OutputStamps yet.
func OutputStampsJSON(root string) string { return filepath.Join(root, DirName, "outputs.json") }

// ApproveKey is the running daemon's approval key (0600): what `vx
// approve` sends to approve a plan. MCP clients are never given it. It is
// the one file of a workspace kept outside it, in the user's configuration
// directory (CONFIG/vx/approve/HASH.key, HASH naming the workspace root),
// so that an agent whose file tools cover the workspace does not find it
// there; without a configuration directory (no HOME) it is
// ROOT/.vx/daemon/approve.key.
func ApproveKey(root string) string {
	dir, err := os.UserConfigDir()
	if err != nil || dir == "" || !filepath.IsAbs(dir) {
		return filepath.Join(Daemon(root), "approve.key")
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(dir, "vx", "approve", hex.EncodeToString(sum[:12])+".key")
}
