package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestIdleStopRefusesNewRequests: once the idle timeout has decided to
// stop the daemon, a request let in after is refused with 503 and a
// reason, not handed to an endpoint whose context is being cancelled; a
// request before the decision is served and counted while it runs.
func TestIdleStopRefusesNewRequests(t *testing.T) {
	var q requests
	var during int
	h := q.track(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q.mu.Lock()
		during = q.inFlight
		q.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	if rec.Code != http.StatusNoContent || during != 1 || q.inFlight != 0 {
		t.Fatalf("before the stop: %d, %d in flight while served, %d after; want 204, 1, 0", rec.Code, during, q.inFlight)
	}
	q.stopping = true
	during = -1
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	if rec.Code != http.StatusServiceUnavailable || during != -1 || !strings.Contains(rec.Body.String(), "stopping") || q.inFlight != 0 {
		t.Errorf("after the stop: %d %q (endpoint ran: %v), %d in flight; want 503 and a reason", rec.Code, rec.Body.String(), during != -1, q.inFlight)
	}
}
