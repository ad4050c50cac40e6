package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/layout"
)

// maxNotices bounds what notices.json remembers; past it the oldest are
// forgotten (and would be said once more).
const maxNotices = 256

// notices is what the workspace's runs have said once (.vx/notices.json):
// each said warning by a hash of what it was about, and whether git was
// asked if it ignores .vx/. Two runs at once may each save theirs; the
// one lost is said once more, no worse.
type notices struct {
	path  string
	state noticeState
	dirty bool
}

type noticeState struct {
	// Said holds a hash per warning said, in the order said.
	Said []string `json:"said"`
	// GitIgnoreChecked: git answered whether .vx/ is ignored (and the run
	// warned if not); no later run asks again.
	GitIgnoreChecked bool `json:"gitIgnoreChecked,omitempty"`
}

// loadNotices reads root's notices; a missing, oversized or unreadable
// file is an empty memory.
func loadNotices(root string) *notices {
	n := &notices{path: layout.Notices(root)}
	f, err := os.Open(n.path)
	if err != nil {
		return n
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err == nil && len(b) < 64<<10 {
		if json.Unmarshal(b, &n.state) != nil {
			n.state = noticeState{}
		}
	}
	return n
}

// noticeKey is the hash a notice is remembered by: of its kind and of the
// definitions it is about, so a changed definition is said again.
func noticeKey(kind string, parts ...string) string {
	h := sha256.Sum256([]byte(kind + "\x00" + strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:16])
}

func (n *notices) said(key string) bool {
	for _, k := range n.state.Said {
		if k == key {
			return true
		}
	}
	return false
}

func (n *notices) remember(key string) {
	if n.said(key) {
		return
	}
	n.state.Said = append(n.state.Said, key)
	if len(n.state.Said) > maxNotices {
		n.state.Said = n.state.Said[len(n.state.Said)-maxNotices:]
	}
	n.dirty = true
}

// save writes the notices atomically when something was added.
func (n *notices) save() error {
	if !n.dirty {
		return nil
	}
	b, err := json.Marshal(n.state)
	if err != nil {
		return err
	}
	n.dirty = false
	return hashing.WriteFileAtomic(n.path, append(b, '\n'), 0o644)
}

// checkGitIgnore warns, once per workspace, when root is in a git
// repository that does not ignore .vx/. Until git has answered, a run
// only looks for a .git above root; git is asked once.
func (r *run) checkGitIgnore(n *notices, root string) {
	if n.state.GitIgnoreChecked || !inGitRepo(root) {
		return
	}
	err := exec.Command("git", "-C", root, "check-ignore", "-q", layout.DirName+"/").Run()
	var exit *exec.ExitError
	switch {
	case err == nil: // ignored
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		r.warn(".vx/ (vx's cache and run history) is not ignored by git: add the line .vx/ to .gitignore")
	default:
		return // no git, or it could not tell: ask again next run
	}
	n.state.GitIgnoreChecked, n.dirty = true, true
}

// inGitRepo says whether dir or a directory above it holds .git.
func inGitRepo(dir string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}
