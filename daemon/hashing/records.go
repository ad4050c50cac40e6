package hashing

import (
	"encoding/hex"
	"path/filepath"
	"sort"
	"strings"
)

// Records gives each of files (slash paths relative to root, as listed)
// the index of its record in the loaded stat cache, or -1 for none, for
// HashRecord. The listing and the cache are both sorted by path, and
// under one root the two orders agree, so one merge of the two finds
// every record: a no-op run's 11,000 map lookups by absolute path (0.5–
// 0.9 µs each among the workers' stats, which thrash the caches the map
// lives in) become a string comparison each. A cache not in order only
// finds fewer (HashRecord then looks the file up as HashFile does). It is
// nil where none can answer: no records, or a daemon's change journal in
// use.
func (h *Hasher) Records(root string, files []string) []int32 {
	if h.changes != nil {
		return nil
	}
	h.load()
	names := h.pre.names
	if len(names) == 0 {
		return nil
	}
	prefix := filepath.Clean(root) + string(filepath.Separator)
	out := make([]int32, len(files))
	j := sort.SearchStrings(names, prefix)
	for i, f := range files {
		out[i] = -1
		for j < len(names) {
			rel, ok := strings.CutPrefix(names[j], prefix)
			if !ok {
				j = len(names) // past root's records
				break
			}
			if rel < f {
				j++
				continue
			}
			if rel == f {
				out[i] = int32(j)
				j++
			}
			break
		}
	}
	return out
}

// RecordPath is the absolute path of loaded record rec, "" for none (-1):
// for a listed file, the one its Records entry was found by.
func (h *Hasher) RecordPath(rec int32) string {
	if rec < 0 {
		return ""
	}
	h.load()
	if int(rec) >= len(h.pre.names) {
		return ""
	}
	return h.pre.names[rec]
}

// HashRecord is HashFile of abs, which Records found as loaded record rec
// (-1: none). The record's stat and hash answer without a map lookup: a
// file the early stat marked (prestat.go) needs nothing more, any other
// one stat compared with the record. A file whose stat differs, a link,
// one gone, and any file of a Hasher using a daemon's change journal take
// HashFile's own path.
func (h *Hasher) HashRecord(abs string, rec int32) (string, error) {
	if rec < 0 || h.changes != nil {
		return h.HashFile(abs)
	}
	h.load()
	p := &h.pre
	if int(rec) >= len(p.names) || p.names[rec] != abs {
		return h.HashFile(abs)
	}
	if p.fresh[rec].Load() {
		return hex.EncodeToString(p.hashes[rec][:]), nil
	}
	var st Stat
	if err := Lstat(abs, &st); err == nil && st.Regular() && statKeyOf(&st) == p.keys[rec] {
		return hex.EncodeToString(p.hashes[rec][:]), nil
	}
	return h.HashFile(abs)
}
