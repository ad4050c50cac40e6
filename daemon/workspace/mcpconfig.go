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

func (c MCPConfig) validate(file string) error {
	if c.PlanTTL == "" {
		return nil
	}
	d, err := time.ParseDuration(c.PlanTTL)
	if err != nil || d < minPlanTTL || d > maxPlanTTL {
		return &FileError{File: file, Msg: fmt.Sprintf("mcp.planTtl: %q is not a plan lifetime (use a duration from %s to %s, such as \"5m\" or \"1h\")", c.PlanTTL, minPlanTTL, maxPlanTTL)}
	}
	return nil
}
