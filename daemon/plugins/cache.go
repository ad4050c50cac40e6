package plugins

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/plugin"
)

// stored is one declaration's last good answers, kept in
// .vx/plugins/<hash of the spec>.json. DescribeKey and TasksKey are the
// inputs the answers were given for; an answer is reused only when its key
// is the one computed now.
type stored struct {
	Spec        string           `json:"spec"`
	Identity    string           `json:"identity"`
	DescribeKey string           `json:"describeKey"`
	Describe    *plugin.Describe `json:"describe"`
	TasksKey    string           `json:"tasksKey,omitempty"`
	Tasks       []plugin.Task    `json:"tasks,omitempty"`
	Files       []string         `json:"files,omitempty"`
	At          time.Time        `json:"at"`
}

// storePath is where spec's answers are kept.
func storePath(root, spec string) string {
	sum := sha256.Sum256([]byte(spec))
	return filepath.Join(layout.Dir(root), "plugins", hex.EncodeToString(sum[:12])+".json")
}

// loadStored reads spec's answers; a missing or unreadable file is none.
func loadStored(root, spec string) *stored {
	b, err := readBounded(storePath(root, spec), 2*plugin.MaxAnswer+(1<<20))
	if err != nil {
		return nil
	}
	var s stored
	if json.Unmarshal(b, &s) != nil || s.Spec != spec || s.Describe == nil {
		return nil
	}
	return &s
}

// save writes s atomically (a reader sees the old answers or the new).
func (s *stored) save(root string) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	p := storePath(root, s.Spec)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return hashing.WriteFileReplace(p, b, 0o644)
}

// key hashes parts, each length-prefixed so that no two lists collide.
func key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		for i := range n {
			n[i] = byte(len(p) >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}
