package workspace

import (
	"fmt"
	"time"
)

// DefaultPlanTTL is how long a plan lasts when mcp.planTtl is not set.
const DefaultPlanTTL = 5 * time.Minute

// Bounds of mcp.planTtl: long enough for a human to read a plan, short
// enough that a plan is not applied to a workspace nobody looked at.
const (
	minPlanTTL = 10 * time.Second
	maxPlanTTL = 24 * time.Hour
)

// PlanTTLDuration is mcp.planTtl as a duration (DefaultPlanTTL when unset).
func (c MCPConfig) PlanTTLDuration() time.Duration {
	if c.PlanTTL == "" {
		return DefaultPlanTTL
	}
	d, _ := time.ParseDuration(c.PlanTTL)
	return d
}

// Catalogs mcp.tools may name.
const (
	ToolsFull    = "full"
	ToolsCompact = "compact"
)

// Compact reports whether mcp.tools asks for the compact catalog.
func (c MCPConfig) Compact() bool { return c.Tools == ToolsCompact }

func (c MCPConfig) validate(file string) error {
	if c.Tools != "" && c.Tools != ToolsFull && c.Tools != ToolsCompact {
		return &FileError{File: file, Msg: fmt.Sprintf("mcp.tools: %q is not a catalog (use \"full\", the default, or \"compact\")", c.Tools)}
	}
	if c.PlanTTL == "" {
		return nil
	}
	d, err := time.ParseDuration(c.PlanTTL)
	if err != nil || d < minPlanTTL || d > maxPlanTTL {
		return &FileError{File: file, Msg: fmt.Sprintf("mcp.planTtl: %q is not a plan lifetime (use a duration from %s to %s, such as \"5m\" or \"1h\")", c.PlanTTL, minPlanTTL, maxPlanTTL)}
	}
	return nil
}
