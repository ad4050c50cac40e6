package remotecache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vzn/vx/daemon/workspace"
)

// The vectors were computed with openssl (an independent HMAC):
//
//	printf 'ID''TEAM''BODY' | openssl dgst -sha256 -hmac KEY -binary | base64
//
// the first from Turborepo's own test cases (signature_authentication.rs).
func TestTagMatchesTurborepoConstruction(t *testing.T) {
	cases := []struct{ key, id, team, body, want string }{
		{"x3vq8mFz0J", "d5b7e4688f", "tH7sL1Rn9K", "\x05\x48\xdb\x27\x9c", "ki5kbVnrrPqbWiWxMWbW3OE6Q6SXmbqEpfGvEFQWbZw="},
		{"k3y", "abc123", "team_x", "body bytes", "sO7b0xiJl+1fKY9ylD19fZSIIXBjsXfTssSEQDOrGn8="},
	}
	for _, c := range cases {
		if got := tag(c.key, c.id, c.team, []byte(c.body)); got != c.want {
			t.Errorf("Tag(%q, %q, %q) = %s, want %s", c.key, c.id, c.team, got, c.want)
		}
		s := newSigner(c.key, c.id, c.team)
		s.Write([]byte(c.body))
		if !s.Verify(c.want) {
			t.Errorf("Verify refused its own tag for %q", c.id)
		}
		other := newSigner(c.key+"x", c.id, c.team)
		other.Write([]byte(c.body))
		if other.Verify(c.want) || other.Verify("not base64!") {
			t.Errorf("Verify accepted a tag made with another key")
		}
	}
}

func TestRemoteHash(t *testing.T) {
	a, b := remoteHash("npm:one", "abcd"), remoteHash("npm:two", "abcd")
	if a == b || a != remoteHash("npm:one", "abcd") || len(a) != 64 {
		t.Fatalf("ids: %s %s", a, b)
	}
	// The separator keeps "ab"+"cd" and "a"+"bcd" apart.
	if remoteHash("ab", "cd") == remoteHash("a", "bcd") {
		t.Fatal("namespace and key run together")
	}
}

func TestParseMode(t *testing.T) {
	cases := []struct {
		in   string
		want Mode
		err  string
	}{
		{"local:rw,remote:rw", Mode{true, true, true, true}, ""},
		{"local:rw", Mode{true, true, false, false}, ""},
		{"local:r,remote:w", Mode{true, false, false, true}, ""},
		{"local:,remote:r", Mode{false, false, true, false}, ""},
		{"", Mode{}, ""},
		{"remote:x", Mode{}, "not a permission"},
		{"cloud:rw", Mode{}, "not a cache"},
		{"local", Mode{}, "no permission"},
		{"local:r,local:w", Mode{}, "twice"},
	}
	for _, c := range cases {
		got, err := ParseMode(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseMode(%q): err %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseMode(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

func model(t *testing.T, rc *workspace.RemoteCacheConfig, pkgName string) *workspace.Model {
	t.Helper()
	root := t.TempDir()
	if pkgName != "" {
		os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"name": "`+pkgName+`"}`), 0o644)
	}
	m := &workspace.Model{Root: root}
	m.Config.RemoteCache = rc
	return m
}

func TestResolve(t *testing.T) {
	cfg := &workspace.RemoteCacheConfig{URL: "https://cfg.example/", Team: "cfgteam", Timeout: "5s"}
	t.Run("none", func(t *testing.T) {
		s, err := Resolve(model(t, nil, ""), map[string]string{"TURBO_TOKEN": "x"})
		if s != nil || err != nil {
			t.Fatalf("want no remote, got %+v %v", s, err)
		}
	})
	t.Run("config", func(t *testing.T) {
		s, err := Resolve(model(t, cfg, "ws"), map[string]string{"VX_REMOTE_CACHE_TOKEN": "tk"})
		if err != nil || s.URL != "https://cfg.example" || s.Team != "cfgteam" || s.Token != "tk" || s.Timeout.Seconds() != 5 || s.Namespace != "npm:ws" {
			t.Fatalf("%+v %v", s, err)
		}
		if s.Sources["url"] != "config" || s.Sources["token"] != "VX_REMOTE_CACHE_TOKEN" {
			t.Fatalf("sources %v", s.Sources)
		}
	})
	t.Run("env overrides, turbo fallback", func(t *testing.T) {
		env := map[string]string{"VX_REMOTE_CACHE_URL": "http://vx.example", "TURBO_API": "http://turbo.example", "TURBO_TEAM": "tt", "TURBO_TOKEN": "turbotok", "VX_REMOTE_CACHE_READ_ONLY": "1"}
		s, err := Resolve(model(t, cfg, "ws"), env)
		if err != nil || s.URL != "http://vx.example" || s.Team != "tt" || s.Token != "turbotok" || !s.ReadOnly {
			t.Fatalf("%+v %v", s, err)
		}
		if got := s.Secrets(); got[0] != "turbotok" {
			t.Fatalf("secrets %v", got)
		}
	})
	t.Run("turbo only", func(t *testing.T) {
		s, err := Resolve(model(t, nil, ""), map[string]string{"TURBO_API": "http://turbo.example", "TURBO_TEAM": "tt"})
		if err != nil || s.URL != "http://turbo.example" || s.Sources["url"] != "TURBO_API" {
			t.Fatalf("%+v %v", s, err)
		}
	})
	bad := []struct {
		name string
		rc   *workspace.RemoteCacheConfig
		env  map[string]string
		err  string
	}{
		{"no team", &workspace.RemoteCacheConfig{URL: "http://x.example"}, nil, "has no team"},
		{"signature without key", &workspace.RemoteCacheConfig{URL: "http://x.example", Team: "t", Signature: true}, nil, "no signature key"},
		{"bad url", nil, map[string]string{"VX_REMOTE_CACHE_URL": "ftp://x", "VX_REMOTE_CACHE_TEAM": "t"}, "http:// or https://"},
		{"credentials in url", nil, map[string]string{"VX_REMOTE_CACHE_URL": "https://u:pw@x.example", "VX_REMOTE_CACHE_TEAM": "t"}, "credentials"},
		{"bad read-only", &workspace.RemoteCacheConfig{URL: "http://x.example", Team: "t"}, map[string]string{"VX_REMOTE_CACHE_READ_ONLY": "yes"}, "VX_REMOTE_CACHE_READ_ONLY"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(model(t, c.rc, ""), c.env)
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err %v, want %q", err, c.err)
			}
			if strings.Contains(err.Error(), "pw") {
				t.Fatalf("the error repeats the URL's password: %v", err)
			}
		})
	}
	t.Run("signature key is secret", func(t *testing.T) {
		s, err := Resolve(model(t, &workspace.RemoteCacheConfig{URL: "http://x.example", Team: "t", Signature: true}, ""), map[string]string{"TURBO_REMOTE_CACHE_SIGNATURE_KEY": "sk"})
		if err != nil || s.Key != "sk" || s.Secrets()[1] != "sk" {
			t.Fatalf("%+v %v", s, err)
		}
		st := s.Status()
		if !st.Signature || strings.Contains(strings.Join([]string{st.URL, st.Team, st.Namespace}, " "), "sk") {
			t.Fatalf("status %+v", st)
		}
	})
}

func TestNamespace(t *testing.T) {
	if ns, src := namespace("explicit", t.TempDir()); ns != "explicit" || src != "config" {
		t.Fatalf("%s %s", ns, src)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "package.json"), []byte(`{"name": "monorepo"}`), 0o644)
	if ns, src := namespace("", root); ns != "npm:monorepo" || src != "package.json" {
		t.Fatalf("package.json: %s %s", ns, src)
	}
	if _, err := exec.LookPath("git"); err == nil {
		exec.Command("git", "-C", root, "init", "-q").Run()
		exec.Command("git", "-C", root, "remote", "add", "origin", "git@github.com:Org/Repo.git").Run()
		if ns, src := namespace("", root); ns != "git:github.com/Org/Repo" || src != "git-remote" {
			t.Fatalf("git remote: %s %s", ns, src)
		}
	}
	plain := filepath.Join(t.TempDir(), "myrepo")
	os.Mkdir(plain, 0o755)
	if ns, src := namespace("", plain); ns != "dir:myrepo" || src != "directory" {
		t.Fatalf("dir: %s %s", ns, src)
	}
	for in, want := range map[string]string{
		"https://user:pw@GitHub.com/org/repo.git": "github.com/org/repo",
		"git@github.com:org/repo.git":             "github.com/org/repo",
		"ssh://git@github.com/org/repo":           "github.com/org/repo",
	} {
		if got := normalizeRemote(in); got != want {
			t.Errorf("normalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

// The namespace is shown by vx info and getWorkspaceInfo: a git remote's
// credentials never reach it, even when the URL does not parse.
func TestNamespaceDropsRemoteCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://u:p%zzsekrit@github.com/org/repo.git": "github.com/org/repo",
		"https://u:a@b%zzsekrit@github.com/org/repo":   "github.com/org/repo",
		"https://u:a/sekrit@github.com/org/repo":       "github.com/org/repo",
	} {
		if got := normalizeRemote(in); got != want || strings.Contains(got, "sekrit") {
			t.Errorf("normalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
}
