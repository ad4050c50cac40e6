// Package repeat keeps the last fully cached run of a workspace so that an
// identical run while vxd is up can repeat it without loading the
// workspace, listing or statting a file: vxd's change journal proves that
// nothing the run depends on changed since a token taken before that run
// looked at anything, and the few paths the journal does not watch
// (git's index and configuration, vx's output stamps, the vx binary) are
// checked by their stat. Anything else (another request or environment,
// another vx, vxd restarted, a change anywhere in the workspace) is a
// silent fallback to the ordinary run, which may leave a new memo.
package repeat

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/records"
	"github.com/vzn/vx/protocol/version"
)

// magic heads a memo file.
const magic = "vxrepeat2\n"

// maxTasks and maxFile bound what a memo holds and what Load reads.
const maxTasks = 1 << 20

var maxFile = 256 << 20

// Memo is a run every task of which was a cache hit with its outputs as
// vx left them, and what it depended on.
type Memo struct {
	Version string // the vx that ran it
	Root    string
	// Epoch and Seq are the journal token taken before the run loaded
	// anything: a change after it is in the journal's answer.
	Epoch string
	Seq   uint64
	// Salt and Input are the salted digest of the request, the working
	// directory and the whole environment (memoDigest): the same digest is
	// the same run asked again. Salted, so that the memo says nothing of
	// a secret in the environment.
	Salt, Input string
	RunID       string // the run repeated
	// Command and Args are the run's command line as recorded (masked).
	Command string
	Args    []string
	CI      bool
	Watched []hashing.Stamp // what the journal does not watch, as it stat'ed
	Tasks   []Task          // in the order the run finished them
}

// Task is one hit of the run.
type Task struct {
	ID, Project, Task, Key, CacheSource string
	Outputs                             int
	DependsOn                           []string
	// Log is what the run printed for the task, masked, without its
	// prefix, when Printed.
	Log     string
	Printed bool
}

// newSalt is a fresh salt for memoDigest.
func newSalt() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// diagnostics are the variables that change what vx tells about itself
// (its log, profiles and trace), never what a run does.
var diagnostics = []string{"VX_LOG=", "VX_CPUPROFILE=", "VX_MEMPROFILE=", "VX_TRACE="}

// memoDigest is the salted digest of parts, each length-prefixed, and of
// environ in sorted order (the order of a process's environment is not
// the run's business), less vx's diagnostics variables.
func memoDigest(salt string, environ []string, parts ...string) string {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	put := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put(salt)
	for _, p := range parts {
		put(p)
	}
	env := slices.Sorted(slices.Values(environ))
	put("\x00environ")
	for _, kv := range env {
		if !slices.ContainsFunc(diagnostics, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			put(kv)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Save writes m to path atomically (a reader sees the old memo or the new
// one, never a torn one).
// A memo Load would refuse (larger than maxFile) is not written.
func Save(path string, m *Memo) error {
	b := m.encode()
	if len(b) > maxFile || len(m.Tasks) > maxTasks {
		return fmt.Errorf("the memo of %d tasks is %d bytes: more than a memo may hold (%d tasks, %d bytes)", len(m.Tasks), len(b), maxTasks, maxFile)
	}
	// No fsync: a memo lost or emptied by a power loss does not decode,
	// and the next run goes the ordinary way.
	return hashing.WriteFileReplace(path, b, 0o644)
}

// Remove deletes the memo at path, if any: the workspace's state changed
// in a way the memo cannot see.
func Remove(path string) { _ = os.Remove(path) }

// loadMemo reads the memo at path; nil when there is none, it does not decode
// or another vx wrote it.
func loadMemo(path string) *Memo {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() > int64(maxFile) {
		return nil
	}
	raw := make([]byte, st.Size())
	if _, err := f.ReadAt(raw, 0); err != nil {
		return nil
	}
	m, err := decode(raw)
	if err != nil || m.Version != version.Version {
		return nil
	}
	return m
}

func (m *Memo) encode() []byte {
	var w records.Writer
	w.B.WriteString(magic)
	for _, v := range []string{m.Version, m.Root, m.Epoch} {
		w.Str(v)
	}
	w.Uint(m.Seq)
	for _, v := range []string{m.Salt, m.Input, m.RunID, m.Command} {
		w.Str(v)
	}
	w.Strs(m.Args)
	w.Bool(m.CI)
	w.Uint(uint64(len(m.Watched)))
	for _, s := range m.Watched {
		w.Str(s.Path)
		w.Int(s.Mtime)
		w.Int(s.Ctime)
		w.Int(s.Size)
		w.Uint(s.Ino)
		w.Uint(uint64(s.Mode))
		w.Bool(s.Exists)
	}
	w.Uint(uint64(len(m.Tasks)))
	for _, t := range m.Tasks {
		for _, v := range []string{t.ID, t.Project, t.Task, t.Key, t.CacheSource} {
			w.Str(v)
		}
		w.Uint(uint64(t.Outputs))
		w.Strs(t.DependsOn)
		w.Str(t.Log)
		w.Bool(t.Printed)
	}
	return w.B.Bytes()
}

var errBad = errors.New("not a memo")

func decode(raw []byte) (*Memo, error) {
	if !bytes.HasPrefix(raw, []byte(magic)) {
		return nil, errBad
	}
	r := records.Reader{S: string(raw[len(magic):])}
	m := &Memo{Version: r.Str(), Root: r.Str(), Epoch: r.Str(), Seq: r.Uint(), Salt: r.Str(), Input: r.Str(),
		RunID: r.Str(), Command: r.Str(), Args: r.Strs(maxTasks), CI: r.Bool()}
	n := r.Count(maxTasks)
	m.Watched = make([]hashing.Stamp, 0, n)
	for i := 0; i < n && !r.Bad; i++ {
		m.Watched = append(m.Watched, hashing.Stamp{Path: r.Str(), Mtime: r.Int(), Ctime: r.Int(),
			Size: r.Int(), Ino: r.Uint(), Mode: uint32(r.Uint()), Exists: r.Bool()})
	}
	n = r.Count(maxTasks)
	m.Tasks = make([]Task, 0, n)
	for i := 0; i < n && !r.Bad; i++ {
		m.Tasks = append(m.Tasks, Task{ID: r.Str(), Project: r.Str(), Task: r.Str(), Key: r.Str(), CacheSource: r.Str(),
			Outputs: int(r.Uint()), DependsOn: r.Strs(maxTasks), Log: r.Str(), Printed: r.Bool()})
	}
	if r.Bad || len(r.S) != 0 || m.Epoch == "" || len(m.Tasks) == 0 {
		return nil, errBad
	}
	return m, nil
}
