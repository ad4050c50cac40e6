package wire

import "strings"

// ChangesPath is vxd's endpoint answering what changed in the workspace
// since a journal token: GET ChangesPath?epoch=E&seq=S with the bearer
// token of the discovery file. Without epoch it answers only the current
// token (Complete false).
const ChangesPath = "/changes"

// MaxChangedPaths bounds the paths one Changes answer lists; more changes
// than that are answered "cannot prove" (a full stat is as cheap).
const MaxChangedPaths = 20000

// Changes is vxd's answer: the journal's current token (Epoch, Seq), taken
// after a barrier that guarantees every file event queued before the
// request was counted, and, when Complete, every workspace path (relative,
// slash-separated) that changed since the asked token. Complete is false
// with a Reason when the journal cannot prove its view: another epoch
// (vxd restarted, its watch queue overflowed, a watch failed, a directory
// was renamed), a token from the future, or too many changes. Epoch is ""
// when the journal is not ready (still adding its watches): then there is
// no token to keep either.
type Changes struct {
	Version  string   `json:"version"`
	Root     string   `json:"root"`
	Epoch    string   `json:"epoch"`
	Seq      uint64   `json:"seq"`
	Complete bool     `json:"complete"`
	Reason   string   `json:"reason,omitempty"`
	Changed  []string `json:"changed,omitempty"`
}

// JournalCovers reports whether vxd's change journal watches the workspace
// path rel (slash-separated, relative to the root, "." for the root): every
// path but the state directory .vx at the root and anything under a .git
// or node_modules directory, which workspace listings leave out too. A path
// it does not cover is never taken as unchanged: vx stats it.
func JournalCovers(rel string) bool {
	if rel == "." {
		return true
	}
	if rel == "" || strings.HasPrefix(rel, "/") || rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	if rel == ".vx" || strings.HasPrefix(rel, ".vx/") {
		return false
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if seg == ".git" || seg == "node_modules" {
			return false
		}
	}
	return true
}
