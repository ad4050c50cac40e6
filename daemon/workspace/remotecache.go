package workspace

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// RemoteCacheConfig is "remoteCache" in vx.workspace.json: a Turborepo
// Remote Cache API server shared by a team. The token and the signature key
// are secrets and come only from the environment; a token in this file is
// refused.
type RemoteCacheConfig struct {
	URL       string `json:"url,omitempty"`
	Team      string `json:"team,omitempty"`
	Signature bool   `json:"signature,omitempty"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	Timeout   string `json:"timeout,omitempty"`
	// Namespace names the workspace on the server, so that two workspaces
	// of one team never share an artifact; default: the git remote
	// "origin", else the root package.json name, else the root directory's
	// name.
	Namespace string `json:"namespace,omitempty"`
}

// secretConfigKeys are keys a remoteCache object must not hold: a secret in
// a committed file is a leaked secret.
var secretConfigKeys = map[string]string{
	"token":        "VX_REMOTE_CACHE_TOKEN (or TURBO_TOKEN)",
	"signatureKey": "VX_REMOTE_CACHE_SIGNATURE_KEY (or TURBO_REMOTE_CACHE_SIGNATURE_KEY)",
	"key":          "VX_REMOTE_CACHE_SIGNATURE_KEY (or TURBO_REMOTE_CACHE_SIGNATURE_KEY)",
}

// UnmarshalJSON refuses secrets before the strict decoder sees them, so the
// error says where the value belongs instead of "unknown key".
func (c *RemoteCacheConfig) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("remoteCache: expected an object such as {\"url\": \"https://cache.example.com\", \"team\": \"my-team\"}")
	}
	for k := range raw {
		if env, ok := secretConfigKeys[k]; ok {
			return fmt.Errorf("remoteCache.%s: secrets are not read from vx.workspace.json (it is committed); remove the key and set %s in the environment", k, env)
		}
	}
	type plain RemoteCacheConfig
	var p plain
	if err := decodeEntry(b, &p, "an object with the keys url, team, signature, readOnly, timeout, namespace"); err != nil {
		return err
	}
	*c = RemoteCacheConfig(p)
	return nil
}

// TimeoutDuration is the parsed timeout; 0 when unset.
func (c *RemoteCacheConfig) TimeoutDuration() time.Duration {
	if c == nil || c.Timeout == "" {
		return 0
	}
	d, _ := parseTimeout(c.Timeout)
	return d
}

func (c *RemoteCacheConfig) validate() error {
	if c == nil {
		return nil
	}
	if c.URL != "" {
		if err := CheckRemoteURL(c.URL); err != nil {
			return fmt.Errorf("remoteCache.url: %v", err)
		}
	}
	if c.Timeout != "" {
		if _, err := parseTimeout(c.Timeout); err != nil {
			return fmt.Errorf("remoteCache.timeout: %v", err)
		}
	}
	if len(c.Team) > 256 || strings.ContainsAny(c.Team, "/?#&= \t\n") {
		return fmt.Errorf("remoteCache.team: %q is not a team id or slug (letters, digits, '-', '_', up to 256)", c.Team)
	}
	if len(c.Namespace) > 512 {
		return fmt.Errorf("remoteCache.namespace: %d characters, over the 512 allowed", len(c.Namespace))
	}
	return nil
}

// CheckRemoteURL accepts an http or https base URL with a host and without
// credentials, a query or a fragment.
func CheckRemoteURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		// Not repeated: a malformed URL may still hold a password.
		return fmt.Errorf("not a URL (want one such as https://cache.example.com)")
	}
	shown := RedactURL(s)
	switch {
	case u.User != nil:
		return fmt.Errorf("the URL holds credentials; remove them and set the token in VX_REMOTE_CACHE_TOKEN")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: want an http:// or https:// URL such as https://cache.example.com", shown)
	case u.Host == "":
		return fmt.Errorf("%q has no host", shown)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("%q: a base URL takes no query or fragment", shown)
	}
	return nil
}
