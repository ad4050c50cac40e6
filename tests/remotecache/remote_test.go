package remotecache_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vzn/vx/tests/internal/harness"
)

// A run in clone A fills the server; a fresh clone B gets every task as a
// remote hit, with A's outputs byte for byte and A's logs replayed.
func TestCloneGetsRemoteHits(t *testing.T) {
	srv := startServer(t)
	a, b := clone(t), clone(t)
	first, res := runJSON(t, a, env(srv), "build")
	if !first.OK || first.Remote == nil || first.Remote.Status != "enabled" {
		t.Fatalf("run in A: %+v\n%s", first, res)
	}
	if first.Remote.Uploads != 3 || len(srv.artifacts(t)) != 3 || first.Remote.BytesUp == 0 {
		t.Fatalf("A uploaded %d artifacts (%d bytes), the server holds %v; want 3", first.Remote.Uploads, first.Remote.BytesUp, srv.artifacts(t))
	}
	text := vx(t, b, env(srv), "run", "build")
	if text.Code != 0 {
		t.Fatal(text)
	}
	for _, line := range []string{"lib#build: building lib", "app#build: wrote dist for app", "3 cached (3 remote)"} {
		if !strings.Contains(text.Stdout, line) {
			t.Errorf("B's output lacks %q:\n%s", line, text.Stdout)
		}
	}
	if !reflect.DeepEqual(tree(t, a), tree(t, b)) || len(tree(t, b)) != 9 {
		t.Fatalf("B's outputs differ from A's:\nA %v\nB %v", tree(t, a), tree(t, b))
	}
	// The history says where each hit came from.
	var last struct {
		Tasks []taskRow `json:"tasks"`
	}
	lr := vx(t, b, env(srv), "last", "--format", "json")
	if err := json.Unmarshal([]byte(lr.Stdout), &last); err != nil || len(last.Tasks) != 3 {
		t.Fatalf("vx last: %v\n%s", err, lr)
	}
	for _, r := range last.Tasks {
		if r.CacheSource != "remote" {
			t.Errorf("vx last: %s has cacheSource %q, want remote", r.TaskID, r.CacheSource)
		}
	}
	why := vx(t, b, env(srv), "why", "lib#build", "--format", "json")
	var w struct {
		CacheSource string `json:"cacheSource"`
		Summary     string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(why.Stdout), &w); err != nil || w.CacheSource != "remote" || !strings.Contains(w.Summary, "remote cache") {
		t.Fatalf("vx why does not say the hit came from the remote: %+v %v\n%s", w, err, why)
	}
	// The hits were stored locally: the next run in B is all local.
	again, _ := runJSON(t, b, env(srv), "build")
	if !all(again, "local") || again.Totals.RemoteHits != 0 {
		t.Fatalf("B's second run: %v", sources(again))
	}
}

// The wrong token: one warning naming the server and the refusal, the run
// goes on and passes with the local cache.
func TestWrongToken(t *testing.T) {
	srv := startServer(t)
	ws := clone(t)
	s, res := runJSON(t, ws, env(srv, "VX_REMOTE_CACHE_TOKEN=wrong-token-123"), "build")
	if !s.OK {
		t.Fatalf("the run failed: %s", res)
	}
	w := warnings(s, srv.URL)
	if len(w) != 1 || !strings.Contains(w[0], "401") {
		t.Fatalf("want one warning naming %s and the 401, got %q", srv.URL, s.Warnings)
	}
	if s.Remote == nil || s.Remote.Status != "unauthorized" {
		t.Fatalf("remote status %+v, want unauthorized", s.Remote)
	}
	if strings.Contains(res.Stdout+res.Stderr, "wrong-token-123") {
		t.Fatalf("the token was printed:\n%s", res)
	}
	if len(srv.artifacts(t)) != 0 {
		t.Fatalf("an upload got through with a wrong token: %v", srv.artifacts(t))
	}
}

// A server nobody listens on: one warning, the run passes.
func TestUnreachable(t *testing.T) {
	ws := clone(t)
	dead := &server{URL: "http://127.0.0.1:" + itoa(harness.FreePort(t))}
	s, res := runJSON(t, ws, env(dead), "build")
	if !s.OK || len(warnings(s, dead.URL)) != 1 || !strings.Contains(warnings(s, dead.URL)[0], "unreachable") {
		t.Fatalf("want a passing run with one 'unreachable' warning: %q\n%s", s.Warnings, res)
	}
}

// The server dies while the run is under way (lib's build kills it): a
// warning, every task still runs and the run passes.
func TestServerStoppedMidRun(t *testing.T) {
	srv := startServer(t)
	ws := clone(t)
	hook := "kill -9 " + itoa(srv.cmd.Process.Pid)
	s, res := runJSON(t, ws, env(srv, "VX_TEST_HOOK="+hook), "build")
	if !s.OK {
		t.Fatalf("the run failed after the server stopped: %s", res)
	}
	<-srv.done
	if len(warnings(s, srv.URL)) == 0 {
		t.Fatalf("no warning about the stopped server: %q", s.Warnings)
	}
	for id, src := range sources(s) {
		if src != "miss" {
			t.Errorf("%s: %s, want an executed task", id, src)
		}
	}
}

// Read-only from the client's side: hits are downloaded, nothing is
// uploaded. From the server's side (READ_ONLY=true): the first 403 makes
// the rest of the run read-only, with one warning.
func TestReadOnly(t *testing.T) {
	srv := startServer(t)
	ro := clone(t)
	s, res := runJSON(t, ro, env(srv, "VX_REMOTE_CACHE_READ_ONLY=1"), "build")
	if !s.OK || len(srv.artifacts(t)) != 0 || s.Remote.Write {
		t.Fatalf("a read-only run uploaded: %v %+v\n%s", srv.artifacts(t), s.Remote, res)
	}
	runJSON(t, clone(t), env(srv), "build")
	hits, _ := runJSON(t, clone(t), env(srv, "VX_REMOTE_CACHE_READ_ONLY=1"), "build")
	if !all(hits, "remote") {
		t.Fatalf("a read-only clone did not read: %v", sources(hits))
	}

	rosrv := startServer(t, "READ_ONLY=true")
	s, res = runJSON(t, clone(t), env(rosrv), "build")
	if !s.OK {
		t.Fatal(res)
	}
	w := warnings(s, "403")
	if len(w) != 1 || !strings.Contains(w[0], "read-only") || s.Remote.Write {
		t.Fatalf("want one 403 warning turning the run read-only, got %q (%+v)", s.Warnings, s.Remote)
	}
}

// With signatures on, an artifact altered on the server is a miss: the
// task runs again and its own outputs are kept, never the altered ones. A
// client with another key trusts nothing.
func TestSignedArtifactAltered(t *testing.T) {
	srv := startServer(t, "TURBO_REMOTE_CACHE_SIGNATURE_KEY=server-stores-tags")
	signed := func(ws string) string {
		cfg := filepath.Join(ws, "vx.workspace.json")
		b, _ := os.ReadFile(cfg)
		text := strings.Replace(string(b), `"passEnv"`, `"remoteCache": {"signature": true}, "passEnv"`, 1)
		os.WriteFile(cfg, []byte(text), 0o644)
		return ws
	}
	key := "VX_REMOTE_CACHE_SIGNATURE_KEY=sig-key-77aa"
	a := signed(clone(t))
	if s, res := runJSON(t, a, env(srv, key), "build"); !s.OK || s.Remote.Uploads != 3 {
		t.Fatalf("signed run in A: %s", res)
	}
	arts := srv.artifacts(t)
	if len(arts) != 3 {
		t.Fatalf("server holds %v", arts)
	}
	for _, p := range arts {
		if _, err := os.Stat(p + ".tag"); err != nil {
			t.Fatalf("no tag stored beside %s: %v", p, err)
		}
	}
	// A clone with the key gets all three.
	if s, _ := runJSON(t, signed(clone(t)), env(srv, key), "build"); !all(s, "remote") {
		t.Fatalf("signed clone: %v", sources(s))
	}
	// Alter every artifact, keeping its length and its tag.
	for _, p := range arts {
		flipLastByte(t, p)
	}
	b := signed(clone(t))
	s, res := runJSON(t, b, env(srv, key), "build")
	if !s.OK || !all(s, "miss") || s.Remote.Rejected != 3 {
		t.Fatalf("altered signed artifacts were not refused: %v %+v\n%s", sources(s), s.Remote, res)
	}
	if w := warnings(s, "signature"); len(w) != 1 {
		t.Fatalf("want one signature warning, got %q", s.Warnings)
	}
	// Another key: nothing verifies.
	for _, p := range arts {
		flipLastByte(t, p) // restore
	}
	s, _ = runJSON(t, signed(clone(t)), env(srv, "VX_REMOTE_CACHE_SIGNATURE_KEY=another-key"), "build")
	if !all(s, "miss") || s.Remote.Rejected != 3 {
		t.Fatalf("artifacts signed with another key were accepted: %v", sources(s))
	}
}

// With signatures off, the entry's own checksum catches an altered or
// truncated artifact: a miss, never a restore.
func TestUnsignedArtifactAltered(t *testing.T) {
	srv := startServer(t)
	runJSON(t, clone(t), env(srv), "build")
	arts := srv.artifacts(t)
	if len(arts) != 3 {
		t.Fatalf("server holds %v", arts)
	}
	flipLastByte(t, arts[0])
	b, err := os.ReadFile(arts[1])
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(arts[1], b[:len(b)/2], 0o644)
	s, res := runJSON(t, clone(t), env(srv), "build")
	if !s.OK || s.Remote.Rejected != 2 || s.Remote.Hits != 1 {
		t.Fatalf("want 2 refused and 1 hit: %+v %v\n%s", s.Remote, sources(s), res)
	}
	if len(warnings(s, "damaged or truncated")) != 1 {
		t.Fatalf("want one warning about damaged artifacts: %q", s.Warnings)
	}
}

// A secret's value never reaches the server: the uploaded log is masked,
// and neither the secret nor the token is in any stored byte.
func TestSecretNotUploaded(t *testing.T) {
	srv := startServer(t)
	a := clone(t)
	s, res := runJSON(t, a, env(srv), "secret")
	if !s.OK || s.Remote.Uploads != 3 {
		t.Fatal(res)
	}
	for _, p := range srv.artifacts(t) {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), "hunter2") || strings.Contains(string(b), token) {
			t.Fatalf("%s holds the secret or the token in clear", p)
		}
		log := entryLog(t, b)
		if strings.Contains(log, "hunter2") || !strings.Contains(log, "the secret is ***") {
			t.Fatalf("uploaded log is not masked: %q", log)
		}
	}
	out := vx(t, clone(t), env(srv), "run", "secret")
	if !strings.Contains(out.Stdout, "lib#secret: the secret is ***") || strings.Contains(out.Stdout+out.Stderr, "hunter2") {
		t.Fatalf("replayed remote log: %s", out)
	}
	grepTree(t, filepath.Join(a, ".vx"), token)
}

// Two runs uploading the same keys at once; a third clone still gets
// whole, correct artifacts.
func TestConcurrentUploads(t *testing.T) {
	srv := startServer(t)
	a1, a2 := clone(t), clone(t)
	var wg sync.WaitGroup
	var s1, s2 summary
	wg.Add(2)
	go func() { defer wg.Done(); s1, _ = runJSON(t, a1, env(srv), "build") }()
	go func() { defer wg.Done(); s2, _ = runJSON(t, a2, env(srv), "build") }()
	wg.Wait()
	if !s1.OK || !s2.OK {
		t.Fatalf("concurrent runs: %+v %+v", s1, s2)
	}
	c := clone(t)
	s, res := runJSON(t, c, env(srv), "build")
	if !s.OK || s.Remote.Hits+s.Remote.Rejected != 3 {
		t.Fatal(res)
	}
	// Whatever won, each restored package equals the run that built it.
	got := tree(t, c)
	for id, src := range sources(s) {
		if src != "remote" {
			continue
		}
		pkg := strings.TrimSuffix(id, "#build")
		f := filepath.Join("packages", pkg, "dist", "blob.bin")
		if got[f] != tree(t, a1)[f] && got[f] != tree(t, a2)[f] {
			t.Fatalf("%s restored bytes neither run produced", f)
		}
	}
}

// A token in the config file is refused with the place it belongs.
func TestTokenInConfigRefused(t *testing.T) {
	ws := clone(t)
	cfg := filepath.Join(ws, "vx.workspace.json")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(b), `"passEnv"`, `"remoteCache": {"url": "http://127.0.0.1:1", "token": "abc"}, "passEnv"`, 1)), 0o644)
	res := vx(t, ws, harness.Env(), "run", "build")
	if res.Code == 0 || !strings.Contains(res.Stderr, "remoteCache.token") || !strings.Contains(res.Stderr, "VX_REMOTE_CACHE_TOKEN") || strings.Contains(res.Stderr, "abc") {
		t.Fatalf("want a refusal naming remoteCache.token and VX_REMOTE_CACHE_TOKEN: %s", res)
	}
}

// --cache turns each side off or read-only.
func TestCacheFlag(t *testing.T) {
	srv := startServer(t)
	s, _ := runJSON(t, clone(t), env(srv), "build", "--cache=local:rw")
	if s.Remote != nil || len(srv.artifacts(t)) != 0 {
		t.Fatalf("--cache=local:rw used the remote: %+v", s.Remote)
	}
	runJSON(t, clone(t), env(srv), "build")
	ws := clone(t)
	s, _ = runJSON(t, ws, env(srv), "build", "--cache=remote:r")
	if !all(s, "remote") {
		t.Fatalf("--cache=remote:r: %v", sources(s))
	}
	if _, err := os.Stat(filepath.Join(ws, ".vx", "cache")); err == nil {
		entries, _ := filepath.Glob(filepath.Join(ws, ".vx", "cache", "*", "*.vxc"))
		if len(entries) != 0 {
			t.Fatalf("--cache=remote:r wrote the local cache: %v", entries)
		}
	}
	if tree(t, ws)["packages/lib/dist/out.txt"] == "" {
		t.Fatal("--cache=remote:r restored nothing")
	}
	// Nothing local was kept: without the remote the tasks run.
	if s, _ := runJSON(t, ws, env(srv), "build", "--cache=local:rw"); !all(s, "miss") {
		t.Fatalf("after --cache=remote:r a local-only run found hits: %v", sources(s))
	}
	bad := vx(t, ws, env(srv), "run", "build", "--cache=remote:x")
	if bad.Code != 2 || !strings.Contains(bad.Stderr, "not a permission") {
		t.Fatalf("bad --cache: %s", bad)
	}
}

// A server that accepts connections and never answers: each request gives
// up after remoteCache.timeout, one warning says so, and the run passes
// with every task executed.
func TestSlowServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	ws := clone(t)
	cfg := filepath.Join(ws, "vx.workspace.json")
	b, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, []byte(strings.Replace(string(b), `"passEnv"`, `"remoteCache": {"timeout": "1s"}, "passEnv"`, 1)), 0o644)
	slow := &server{URL: "http://" + l.Addr().String()}
	s, res := runJSON(t, ws, env(slow), "build")
	if !s.OK || !all(s, "miss") {
		t.Fatalf("run against a silent server: %s", res)
	}
	w := warnings(s, slow.URL)
	if len(w) != 1 || !strings.Contains(w[0], "timed out") {
		t.Fatalf("want one 'timed out' warning naming %s, got %q", slow.URL, s.Warnings)
	}
	if s.Remote == nil || s.Remote.Status != "timeout" {
		t.Fatalf("remote status %+v, want timeout", s.Remote)
	}
}

// vx cache status checks the server; vx info shows the settings; neither
// prints the token.
func TestCacheStatus(t *testing.T) {
	srv := startServer(t)
	ws := clone(t)
	type status struct {
		Configured, Reachable, Authorized, Enabled, TokenSet bool
		URL, Team, Namespace, NamespaceSource, Message       string
		RTTMs                                                int64 `json:"rttMs"`
	}
	read := func(res harness.Result) status {
		var st status
		if err := json.Unmarshal([]byte(res.Stdout), &st); err != nil {
			t.Fatalf("decoding %s: %v", res, err)
		}
		if strings.Contains(res.Stdout+res.Stderr, token) {
			t.Fatalf("the token was printed: %s", res)
		}
		return st
	}
	ok := vx(t, ws, env(srv), "cache", "status", "--format", "json")
	st := read(ok)
	if ok.Code != 0 || !st.Configured || !st.Reachable || !st.Authorized || !st.Enabled || !st.TokenSet || st.URL != srv.URL || st.Team != "team_vxsuite" ||
		st.Namespace != "npm:vx-remote-suite" || st.NamespaceSource != "package.json" {
		t.Fatalf("status of a good server: %+v\n%s", st, ok)
	}
	bad := vx(t, ws, env(srv, "VX_REMOTE_CACHE_TOKEN=nope-nope"), "cache", "status", "--format", "json")
	if st := read(bad); bad.Code != 1 || !st.Reachable || st.Authorized || !strings.Contains(st.Message, "401") {
		t.Fatalf("status with a wrong token: %+v\n%s", st, bad)
	}
	srv.Stop()
	down := vx(t, ws, env(srv), "cache", "status", "--format", "json")
	if st := read(down); down.Code != 1 || st.Reachable {
		t.Fatalf("status of a stopped server: %+v\n%s", st, down)
	}
	info := vx(t, ws, env(srv), "info")
	if info.Code != 0 || !strings.Contains(info.Stdout, srv.URL+", team team_vxsuite, signature off") || strings.Contains(info.Stdout, token) {
		t.Fatalf("vx info: %s", info)
	}
}

// A dry run predicts remote hits with HEAD and downloads nothing.
func TestDryRunPredictsRemoteHits(t *testing.T) {
	srv := startServer(t)
	runJSON(t, clone(t), env(srv), "build")
	ws := clone(t)
	res := vx(t, ws, env(srv), "run", "build", "--dry=json")
	var plan struct {
		Tasks []struct {
			TaskID      string `json:"taskId"`
			Cache       string `json:"cache"`
			CacheSource string `json:"cacheSource"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &plan); err != nil || len(plan.Tasks) != 3 {
		t.Fatalf("dry run: %v\n%s", err, res)
	}
	for _, p := range plan.Tasks {
		if p.Cache != "hit" || p.CacheSource != "remote" {
			t.Errorf("%s predicted %s/%s, want a remote hit", p.TaskID, p.Cache, p.CacheSource)
		}
	}
	if entries, _ := filepath.Glob(filepath.Join(ws, ".vx", "cache", "*", "*.vxc")); len(entries) != 0 {
		t.Fatalf("the dry run downloaded %v", entries)
	}
	if tree(t, ws)["packages/lib/dist/out.txt"] != "" {
		t.Fatal("the dry run restored outputs")
	}
}

// A server that redirects downloads to a CDN (TURBO_CACHE_READ_URL; here
// a plain file server over the server's storage): the signature sent with
// the redirect is checked against the CDN's bytes, and the token never
// reaches the CDN.
func TestSignedDownloadThroughRedirect(t *testing.T) {
	storageRoot := filepath.Join(t.TempDir(), "cdn-root")
	var mu sync.Mutex
	var authSeen, served int
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		served++
		if r.Header.Get("Authorization") != "" {
			authSeen++
		}
		mu.Unlock()
		http.FileServer(http.Dir(storageRoot)).ServeHTTP(w, r)
	}))
	defer cdn.Close()
	srv := startServer(t, "TURBO_REMOTE_CACHE_SIGNATURE_KEY=server-stores-tags", "TURBO_CACHE_READ_URL="+cdn.URL+"/")
	if err := os.Symlink(srv.Storage, storageRoot); err != nil {
		t.Fatal(err)
	}
	signed := func(ws string) string {
		cfg := filepath.Join(ws, "vx.workspace.json")
		b, _ := os.ReadFile(cfg)
		os.WriteFile(cfg, []byte(strings.Replace(string(b), `"passEnv"`, `"remoteCache": {"signature": true}, "passEnv"`, 1)), 0o644)
		return ws
	}
	key := "VX_REMOTE_CACHE_SIGNATURE_KEY=sig-key-cdn"
	if s, res := runJSON(t, signed(clone(t)), env(srv, key), "build"); !s.OK || s.Remote.Uploads != 3 {
		t.Fatalf("signed run: %s", res)
	}
	b := signed(clone(t))
	s, res := runJSON(t, b, env(srv, key), "build")
	if !all(s, "remote") {
		t.Fatalf("downloads through the redirect: %v\n%s", sources(s), res)
	}
	mu.Lock()
	defer mu.Unlock()
	if served < 3 || authSeen != 0 {
		t.Fatalf("the CDN served %d requests, %d with an Authorization header", served, authSeen)
	}
}
