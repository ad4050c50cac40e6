package server

import (
	"crypto/sha256"
	"sync"
	"time"
)

// maxPageLogins bounds the live page logins; a new one ends the oldest.
const maxPageLogins = 32

// pageLogins are the credentials minted by logging in to the status page
// with ?token= or ?approver= and the approval key; they read the page
// and never approve a plan (approve.go). Each is random and unrelated to the token and the
// key; only their hashes are kept, in memory, so they end with the daemon.
type pageLogins struct {
	mu   sync.Mutex
	live map[[sha256.Size]byte]time.Time // when each was minted
}

// mint makes a new page credential.
func (p *pageLogins) mint() (string, error) {
	v, err := newToken()
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live == nil {
		p.live = map[[sha256.Size]byte]time.Time{}
	}
	for len(p.live) >= maxPageLogins {
		var oldest [sha256.Size]byte
		first := true
		for k, at := range p.live {
			if first || at.Before(p.live[oldest]) {
				oldest, first = k, false
			}
		}
		delete(p.live, oldest)
	}
	p.live[sha256.Sum256([]byte(v))] = time.Now()
	return v, nil
}

// valid reports whether v is a live page credential. The lookup is by
// hash, so its time says nothing about how much of v is right.
func (p *pageLogins) valid(v string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.live[sha256.Sum256([]byte(v))]
	return ok
}
