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
	Files       []fileRec        `json:"files,omitempty"`
	At          time.Time        `json:"at"`

	// rehashed counts the matched files this load read (their stamps did
	// not vouch for them): storing their new stamps spares the next load.
	rehashed int
}

// fileRec is a matched file as a tasks answer was given for it: its
// content hash, and its stamp then, which lets a later load take the hash
// without reading the file again.
type fileRec struct {
	Path  string        `json:"path"`
	Hash  string        `json:"hash"`
	Stamp hashing.Stamp `json:"stamp"`
}

// racyWindow: a stamp this close to the answer's time (or later) is not
// trusted; timestamps are coarse, and an edit right after the hash could
// leave the stamp as it was.
const racyWindow = 2 * time.Second

// trusted reports whether st, the stamp of the file r records now, is the
// stamp it had well before the answer was stored at at: then r.Hash is
// its content's hash without reading it.
func (r fileRec) trusted(st hashing.Stamp, at time.Time) bool {
	return st.Exists && r.Stamp == st && time.Unix(0, st.Mtime).Before(at.Add(-racyWindow)) &&
		time.Unix(0, st.Ctime).Before(at.Add(-racyWindow))
}

func (s *stored) paths() []string {
	out := make([]string, len(s.Files))
	for i, r := range s.Files {
		out[i] = r.Path
	}
	return out
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
