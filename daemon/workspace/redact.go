package workspace

import (
	"net/url"
	"strings"
)

// RedactURL is how a configured URL may be quoted in an error or an
// answer: scheme, host and path only. Credentials in the user info, the
// query and the fragment are dropped (a URL such as
// https://TOKEN@cache.example.com/?key=K carries secrets no masker knows),
// and a string that does not parse as a URL is not quoted at all.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" {
		return "(a value that is not a URL)"
	}
	out := u.Scheme + "://" + u.Host + u.EscapedPath()
	if u.Scheme == "" {
		out = u.Host + u.EscapedPath()
	}
	if u.User != nil {
		out = strings.Replace(out, "://", "://…@", 1)
	}
	if u.RawQuery != "" || u.ForceQuery {
		out += "?…"
	}
	if u.Fragment != "" {
		out += "#…"
	}
	return out
}
