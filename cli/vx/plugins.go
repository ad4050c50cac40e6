package vx

import (
	"fmt"
	"strings"

	"github.com/vzn/vx/daemon/ops"
)

// pluginText is one plugin's line of vx info.
func pluginText(p ops.InfoPlugin) string {
	name := p.Plugin
	if p.Name != "" {
		name = fmt.Sprintf("%s %s (%s)", p.Name, p.Version, p.Plugin)
	}
	s := fmt.Sprintf("%s: stages %s, %d task(s) from %d file(s)", name, strings.Join(p.Stages, "+"), p.Tasks, p.Files)
	if len(p.Commands) > 0 {
		s += ", commands " + strings.Join(p.Commands, ", ")
	}
	if p.Stale {
		s += "; serving its last good answer"
	}
	if p.Error != "" {
		s += "; error: " + strings.ReplaceAll(p.Error, "\n", " | ")
	}
	return s
}
