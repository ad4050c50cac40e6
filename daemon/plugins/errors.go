package plugins

import (
	"fmt"
	"strings"
)

// pluginError is a plugin's refusal: the plugin, the file it concerns (its
// declaration, or the file a bad task came from), the reason and the tail
// of its stderr, all already masked.
type pluginError struct {
	Plugin string
	File   string
	Reason string
	Stderr string
}

func (e *pluginError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "plugin %s", e.Plugin)
	if e.File != "" {
		fmt.Fprintf(&b, " (%s)", e.File)
	}
	b.WriteString(": " + e.Reason)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString("\nits stderr ends:\n" + s)
	}
	return b.String()
}
