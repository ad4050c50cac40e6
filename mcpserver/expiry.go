package mcpserver

import "time"

// defaultSessionIdle is how long a session may sit with nothing in flight,
// no open stream and no request before it is ended.
const defaultSessionIdle = 30 * time.Minute

// Hold marks a stream of the session as open (the transport's GET
// stream): a held session never expires. release undoes one Hold and
// counts as activity; calling it again does nothing.
func (ss *Session) Hold() (release func()) {
	ss.mu.Lock()
	ss.holds++
	ss.mu.Unlock()
	var once bool
	return func() {
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if once {
			return
		}
		once = true
		ss.holds--
		ss.last = time.Now()
	}
}

// armExpiry starts the session's expiry timer. One timer per session,
// re-armed from the last activity when it fires: nothing polls.
func (ss *Session) armExpiry() {
	idle := ss.srv.sessionIdle
	if idle < 0 {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return
	}
	ss.expiry = time.AfterFunc(idle, ss.checkExpiry)
}

// checkExpiry ends the session when it has been idle for sessionIdle,
// else re-arms the timer for the rest of the time.
func (ss *Session) checkExpiry() {
	idle := ss.srv.sessionIdle
	ss.mu.Lock()
	if ss.closed {
		ss.mu.Unlock()
		return
	}
	quiet := time.Since(ss.last)
	busy := ss.holds > 0 || len(ss.inflight) > 0
	if busy || quiet < idle {
		next := idle - quiet
		if busy || next <= 0 {
			next = idle
		}
		ss.expiry.Reset(next)
		ss.mu.Unlock()
		return
	}
	ss.mu.Unlock()
	ss.srv.log.Info().Str("session", ss.id).Dur("idle", quiet).Msg("session expired: no request and no open stream")
	ss.Close()
}
