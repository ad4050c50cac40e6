package remotecache

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"io"
)

// remoteHash is the artifact id a task's cache key is stored under: hex
// SHA-256 over a version tag, the workspace namespace and the key, each
// NUL-terminated. Two workspaces of one team (different namespaces) never
// share an id; two clones of one workspace (same namespace, same key) do.
func remoteHash(namespace, key string) string {
	h := sha256.New()
	io.WriteString(h, "vx-remote-v1\x00")
	io.WriteString(h, namespace)
	h.Write([]byte{0})
	io.WriteString(h, key)
	return hex.EncodeToString(h.Sum(nil))
}

// signer computes x-artifact-tag the way Turborepo does: HMAC-SHA256 keyed
// with the signature key, over the artifact id's bytes, then the team's
// bytes, then the artifact body; the tag is the MAC in standard base64
// (with padding).
type signer struct {
	mac hash.Hash
}

func newSigner(key, id, team string) *signer {
	m := hmac.New(sha256.New, []byte(key))
	io.WriteString(m, id)
	io.WriteString(m, team)
	return &signer{mac: m}
}

func (s *signer) Write(p []byte) (int, error) { return s.mac.Write(p) }

// Tag is the base64 tag over everything written.
func (s *signer) Tag() string { return base64.StdEncoding.EncodeToString(s.mac.Sum(nil)) }

// Verify compares tag with the MAC in constant time; a tag that is not
// base64 is simply wrong.
func (s *signer) Verify(tag string) bool {
	want, err := base64.StdEncoding.DecodeString(tag)
	if err != nil {
		return false
	}
	return hmac.Equal(s.mac.Sum(nil), want)
}

// tag signs body for artifact id and team with key.
func tag(key, id, team string, body []byte) string {
	s := newSigner(key, id, team)
	s.Write(body)
	return s.Tag()
}
