package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestGuardPageLogin(t *testing.T) {
	const port, token, login = 4711, "the-bearer-token", "a-page-login"
	page := &PageAuth{Cookie: "vxd_page_4711", Routes: []string{"GET /", "GET /events"}, Valid: func(v string) bool { return v == login }}
	h := Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }), GuardOptions{Port: port, Token: token, Page: page})
	own := "http://127.0.0.1:" + strconv.Itoa(port)
	tests := []struct {
		name, method, path string
		headers            map[string]string
		want               int
	}{
		{"page with the login", "GET", "/", map[string]string{"Cookie": "vxd_page_4711=" + login}, 200},
		{"feed with the login from the own page", "GET", "/events", map[string]string{"Cookie": "vxd_page_4711=" + login, "Origin": own}, 200},
		{"login on /mcp", "POST", "/mcp", map[string]string{"Cookie": "vxd_page_4711=" + login}, 401},
		{"login on a route not listed", "GET", "/status", map[string]string{"Cookie": "vxd_page_4711=" + login}, 401},
		{"login with another method", "POST", "/", map[string]string{"Cookie": "vxd_page_4711=" + login}, 401},
		{"login as a bearer token", "POST", "/mcp", map[string]string{"Authorization": "Bearer " + login}, 401},
		{"the token in the cookie", "GET", "/", map[string]string{"Cookie": "vxd_page_4711=" + token}, 401},
		{"login under another daemon's name", "GET", "/", map[string]string{"Cookie": "vxd_page_4712=" + login}, 401},
		{"login from another local page", "GET", "/events", map[string]string{"Cookie": "vxd_page_4711=" + login, "Origin": "http://127.0.0.1:5173"}, 401},
		{"bearer token still opens /mcp", "POST", "/mcp", map[string]string{"Authorization": "Bearer " + token}, 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, tc.path, nil)
			req.Host = "127.0.0.1:" + strconv.Itoa(port)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.want)
			}
		})
	}
}
