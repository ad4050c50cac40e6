// Package remotecache shares task cache entries through a server speaking
// the Turborepo Remote Cache HTTP API (/v8/artifacts): Vercel, the
// open-source turborepo-remote-cache, or anything compatible.
//
// An artifact is a vx cache entry file exactly as daemon/cache writes it
// (outputs, masked log, trailing checksum), stored under a hash of the
// task's cache key and the workspace's namespace. Uploads are signed with
// HMAC-SHA256 when a signature key is set, and every download is checked
// (signature, then entry checksum) before a byte is restored. The remote
// never fails a run: each problem is one warning, then the run goes on
// with the local cache.
package remotecache

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// defaultTimeout bounds each request and the end-of-run wait for uploads.
const defaultTimeout = 30 * time.Second

// Environment variables, vx's first, then Turborepo's as fallbacks.
var (
	envURL      = []string{"VX_REMOTE_CACHE_URL", "TURBO_API"}
	envToken    = []string{"VX_REMOTE_CACHE_TOKEN", "TURBO_TOKEN"}
	envTeam     = []string{"VX_REMOTE_CACHE_TEAM", "TURBO_TEAM"}
	envKey      = []string{"VX_REMOTE_CACHE_SIGNATURE_KEY", "TURBO_REMOTE_CACHE_SIGNATURE_KEY"}
	envReadOnly = "VX_REMOTE_CACHE_READ_ONLY"
)

// Settings is the resolved remote cache configuration. Token and Key are
// secrets: no method prints them and Status leaves them out.
type Settings struct {
	URL       string
	Team      string
	Token     string
	Key       string // signature key; set when Signature is on
	Signature bool
	ReadOnly  bool
	Timeout   time.Duration
	// Namespace identifies the workspace on the server (see remoteHash).
	Namespace       string
	NamespaceSource string
	Sources         map[string]string
}

// Secrets lists the values a masker must hide.
func (s *Settings) Secrets() []string {
	if s == nil {
		return nil
	}
	return []string{s.Token, s.Key}
}

// Server is the URL's scheme and host, how warnings name the server.
func (s *Settings) Server() string {
	u, err := url.Parse(s.URL)
	if err != nil {
		return workspace.RedactURL(s.URL)
	}
	return u.Scheme + "://" + u.Host
}

func lookup(env map[string]string, names []string) (string, string) {
	for _, n := range names {
		if v := env[n]; v != "" {
			return v, n
		}
	}
	return "", ""
}

// Resolve combines the workspace's remoteCache with the environment. It
// returns nil, nil when no remote is configured anywhere, and an error
// naming the setting when one is configured but unusable.
func Resolve(m *workspace.Model, env map[string]string) (*Settings, error) {
	var cfg workspace.RemoteCacheConfig
	if m != nil && m.Config.RemoteCache != nil {
		cfg = *m.Config.RemoteCache
	}
	s := &Settings{URL: cfg.URL, Team: cfg.Team, Signature: cfg.Signature, ReadOnly: cfg.ReadOnly, Timeout: cfg.TimeoutDuration(), Sources: map[string]string{}}
	set := func(field string, dst *string, names []string, cfgVal string) {
		if v, n := lookup(env, names); v != "" {
			*dst = v
			s.Sources[field] = n
		} else if cfgVal != "" {
			s.Sources[field] = "config"
		}
	}
	set("url", &s.URL, envURL, cfg.URL)
	if s.URL == "" {
		return nil, nil
	}
	set("team", &s.Team, envTeam, cfg.Team)
	var tokenSrc string
	s.Token, tokenSrc = lookup(env, envToken)
	if tokenSrc != "" {
		s.Sources["token"] = tokenSrc
	}
	if cfg.ReadOnly {
		s.Sources["readOnly"] = "config"
	}
	if v := env[envReadOnly]; v != "" {
		switch v {
		case "1", "true":
			s.ReadOnly = true
		case "0", "false":
			s.ReadOnly = false
		default:
			return s, fmt.Errorf("%s=%q: use 1 (read-only) or 0", envReadOnly, v)
		}
		s.Sources["readOnly"] = envReadOnly
	}
	if s.Timeout == 0 {
		s.Timeout = defaultTimeout
	} else {
		s.Sources["timeout"] = "config"
	}
	if err := workspace.CheckRemoteURL(s.URL); err != nil {
		// Status shows the URL: never the credentials or query it holds.
		s.URL = workspace.RedactURL(s.URL)
		return s, fmt.Errorf("remote cache URL (%s): %v", s.Sources["url"], err)
	}
	s.URL = strings.TrimRight(s.URL, "/")
	if s.Team == "" {
		return s, fmt.Errorf("remote cache %s has no team: set remoteCache.team in %s or VX_REMOTE_CACHE_TEAM", s.Server(), workspace.ConfigFile)
	}
	if s.Signature {
		s.Sources["signature"] = "config"
		var src string
		if s.Key, src = lookup(env, envKey); s.Key == "" {
			return s, fmt.Errorf("remoteCache.signature is on but no signature key is set: set VX_REMOTE_CACHE_SIGNATURE_KEY (or TURBO_REMOTE_CACHE_SIGNATURE_KEY)")
		}
		s.Sources["signatureKey"] = src
	}
	root := ""
	if m != nil {
		root = m.Root
	}
	s.Namespace, s.NamespaceSource = namespace(cfg.Namespace, root)
	return s, nil
}

// namespace finds the workspace's identity on the server: one that two
// clones of a repository share and two repositories do not.
func namespace(configured, root string) (string, string) {
	if configured != "" {
		return configured, "config"
	}
	if root == "" {
		return "", "none"
	}
	// The repository's remote names it best: root package.json names such
	// as "monorepo" recur across unrelated repositories.
	if out, err := exec.Command("git", "-C", root, "config", "--get", "remote.origin.url").Output(); err == nil {
		if u := normalizeRemote(strings.TrimSpace(string(out))); u != "" {
			return "git:" + u, "git-remote"
		}
	}
	if b, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil {
		var pj struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(b, &pj) == nil && pj.Name != "" {
			return "npm:" + pj.Name, "package.json"
		}
	}
	return "dir:" + filepath.Base(root), "directory"
}

// normalizeRemote reduces a git remote URL to host/path, so that the https
// and ssh spellings of one repository agree and credentials never count.
func normalizeRemote(s string) string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "/"), ".git")
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return strings.ToLower(u.Hostname()) + "/" + strings.Trim(u.Path, "/")
	}
	// A URL that does not parse (a password with '@', '/' or a bad
	// escape): everything up to its last '@' is credentials.
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
		if at := strings.LastIndexByte(s, '@'); at >= 0 {
			s = s[at+1:]
		}
		host, path, _ := strings.Cut(s, "/")
		return strings.ToLower(host) + "/" + strings.Trim(path, "/")
	}
	// scp-like: user@host:path
	if at := strings.IndexByte(s, '@'); at >= 0 {
		s = s[at+1:]
	}
	if host, path, ok := strings.Cut(s, ":"); ok && !strings.Contains(host, "/") {
		return strings.ToLower(host) + "/" + strings.Trim(path, "/")
	}
	return s
}

// Status describes the settings without the token or key.
func (s *Settings) Status() *wire.RemoteStatus {
	if s == nil {
		return &wire.RemoteStatus{}
	}
	return &wire.RemoteStatus{Configured: true, URL: s.URL, Team: s.Team, Namespace: s.Namespace, NamespaceSource: s.NamespaceSource,
		ReadOnly: s.ReadOnly, Signature: s.Signature, TokenSet: s.Token != "", TimeoutMs: s.Timeout.Milliseconds(), Sources: s.Sources}
}
