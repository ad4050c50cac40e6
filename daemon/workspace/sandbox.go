package workspace

import (
	"fmt"
	"strings"

	"github.com/vzn/vx/protocol/wire"
)

// SandboxConfig is a declared "sandbox": where the task may write beyond
// its outputs, whether it may use the network, and whether a violation is
// denied (enforce) or only recorded (report). Required refuses the run on
// a host that cannot confine the task.
type SandboxConfig struct {
	Write    *[]string `json:"write,omitempty"`
	Network  *bool     `json:"network,omitempty"`
	Mode     *string   `json:"mode,omitempty"`
	Required *bool     `json:"required,omitempty"`
}

// SandboxDef is a task's resolved sandbox.
type SandboxDef struct {
	Write    []string `json:"write"`
	Network  bool     `json:"network"`
	Mode     string   `json:"mode"`
	Required bool     `json:"required"`
}

// maxSandboxWrites bounds a declaration's write globs.
const maxSandboxWrites = 256

// merge applies the fields set in o over c; either may be nil.
func (c *SandboxConfig) merge(o *SandboxConfig) *SandboxConfig {
	if c == nil {
		return o
	}
	if o == nil {
		return c
	}
	out := *c
	override(&out.Write, o.Write)
	override(&out.Network, o.Network)
	override(&out.Mode, o.Mode)
	override(&out.Required, o.Required)
	return &out
}

// resolve fills the defaults: no extra writes, network allowed, enforce.
func (c *SandboxConfig) resolve() *SandboxDef {
	if c == nil {
		return nil
	}
	d := &SandboxDef{Write: []string{}, Network: true, Mode: wire.SandboxEnforce}
	if c.Write != nil {
		d.Write = append(d.Write, *c.Write...)
	}
	if c.Network != nil {
		d.Network = *c.Network
	}
	if c.Mode != nil {
		d.Mode = *c.Mode
	}
	if c.Required != nil {
		d.Required = *c.Required
	}
	return d
}

// validate checks a declaration; at names it in the error ("tasks.build.sandbox").
func (c *SandboxConfig) validate(at string) error {
	if c == nil {
		return nil
	}
	if c.Mode != nil && *c.Mode != wire.SandboxEnforce && *c.Mode != wire.SandboxReport {
		return fmt.Errorf("%s.mode: %q is not a sandbox mode (use \"enforce\" or \"report\")", at, *c.Mode)
	}
	if c.Write != nil {
		if len(*c.Write) > maxSandboxWrites {
			return fmt.Errorf("%s.write: %d globs is more than %d", at, len(*c.Write), maxSandboxWrites)
		}
		for i, g := range *c.Write {
			if strings.TrimSpace(g) == "" || strings.ContainsRune(g, 0) {
				return fmt.Errorf("%s.write[%d]: %q is not a path glob (use one such as \"tmp/**\" or \"/var/tmp/cache/**\")", at, i, g)
			}
		}
	}
	return nil
}

// Sandboxed counts the tasks of the workspace's graph-visible (project,
// task) pairs that declare a sandbox.
func (m *Model) Sandboxed() int {
	n := 0
	for _, name := range m.TaskNames() {
		for _, p := range m.Projects {
			if d, ok := m.Resolve(p.Name, name); ok && d.Sandbox != nil && !d.NoOp() {
				n++
			}
		}
	}
	for _, name := range m.RootTasks() {
		if d, ok := m.Resolve(RootProject, name); ok && d.Sandbox != nil && !d.NoOp() {
			n++
		}
	}
	return n
}
