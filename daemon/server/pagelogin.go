package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"
)

// maxPageLogins bounds the live page logins; a new one ends the oldest.
const maxPageLogins = 32

// pageLogins are the credentials minted by logging in to the status page
// with ?token= (reading) or ?approver= and the approval key (reading and
// approving plans). Each is random and unrelated to the token and the
// key; only their hashes are kept, in memory, so they end with the daemon.
type pageLogins struct {
	mu   sync.Mutex
	live map[[sha256.Size]byte]pageLogin
}

type pageLogin struct {
	at       time.Time
	approver bool // made with the approval key: may approve plans
}

// mint makes a new page credential; approver ones may approve plans.
func (p *pageLogins) mint(approver bool) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	v := hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live == nil {
		p.live = map[[sha256.Size]byte]pageLogin{}
	}
	for len(p.live) >= maxPageLogins {
		var oldest [sha256.Size]byte
		first := true
		for k, l := range p.live {
			if first || l.at.Before(p.live[oldest].at) {
				oldest, first = k, false
			}
		}
		delete(p.live, oldest)
	}
	p.live[sha256.Sum256([]byte(v))] = pageLogin{at: time.Now(), approver: approver}
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

// approver reports whether v is a live page credential made with the
// approval key.
func (p *pageLogins) approver(v string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.live[sha256.Sum256([]byte(v))].approver
}
