package journal

import (
	"path/filepath"
	"slices"
	"strings"
)

// provenHash is one saved hash: the file's slash path relative to the
// root, and its hash ("" once the journal reports the path changed).
type provenHash struct {
	rel, sum string
}

// provenSet is the saved state's hashes, sorted by path with no path
// twice (the order the state is saved in). A sorted slice rather than a
// map: a journal's run at 10,000 packages looks up 110,000 paths, and a
// map's probes missed the cache on nearly every one (its groups, then the
// key in the state's buffer), where a binary search's upper levels stay
// cached and a task's files, looked up in path order, sit side by side.
type provenSet []provenHash

// get is the hash of rel; false when it has none or it changed.
func (s provenSet) get(rel string) (string, bool) {
	i, ok := s.find(rel)
	if !ok || s[i].sum == "" {
		return "", false
	}
	return s[i].sum, true
}

func (s provenSet) find(rel string) (int, bool) {
	return slices.BinarySearchFunc(s, rel, func(e provenHash, rel string) int {
		return strings.Compare(e.rel, rel)
	})
}

// drop forgets rel's hash, reporting whether it had one.
func (s provenSet) drop(rel string) bool {
	i, ok := s.find(rel)
	if !ok || s[i].sum == "" {
		return false
	}
	s[i].sum = ""
	return true
}

// sorted reports whether s is strictly increasing by path (a saved state
// that is not is not loaded).
func (s provenSet) sorted() bool {
	for i := 1; i < len(s); i++ {
		if s[i-1].rel >= s[i].rel {
			return false
		}
	}
	return true
}

// merged is the hashes to save: s's (less those dropped) and read's,
// hashes read this run by absolute path under root, which take the place
// of s's for the same path; sorted, at most limit.
func (s provenSet) merged(root string, read map[string]string, limit int) provenSet {
	prefix := root + string(filepath.Separator)
	fresh := make(provenSet, 0, len(read))
	for abs, h := range read {
		if rel, ok := strings.CutPrefix(abs, prefix); ok {
			fresh = append(fresh, provenHash{filepath.ToSlash(rel), h})
		}
	}
	slices.SortFunc(fresh, func(a, b provenHash) int { return strings.Compare(a.rel, b.rel) })
	out := make(provenSet, 0, min(len(s)+len(fresh), limit))
	i, j := 0, 0
	for len(out) < limit && (i < len(s) || j < len(fresh)) {
		switch {
		case i < len(s) && s[i].sum == "":
			i++
		case j == len(fresh) || i < len(s) && s[i].rel < fresh[j].rel:
			out = append(out, s[i])
			i++
		default:
			if i < len(s) && s[i].rel == fresh[j].rel {
				i++ // read again: this run's hash
			}
			out = append(out, fresh[j])
			j++
		}
	}
	return out
}
