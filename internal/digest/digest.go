// Package digest is the one content digest vx names things by (a file's
// content hash, a task's cache key): hex xxh3-128. It is a leaf, so that
// what only computes or compares keys (daemon/taskkey, read by the
// platform) links none of the file hashing around it.
package digest

import (
	"encoding/hex"

	"github.com/zeebo/xxh3"
)

// Sum returns the hex xxh3-128 of b.
func Sum(b []byte) string {
	h := xxh3.Hash128(b).Bytes()
	return hex.EncodeToString(h[:])
}
