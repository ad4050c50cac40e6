package migrate

import (
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// proposeSandbox gives migrated tasks the sandbox asked for (vx init
// --sandbox MODE); none unless asked. In report mode nothing is denied and
// caching is unchanged: each run records what a task writes outside its
// outputs or connects to, so the declarations can be completed before
// enforce.
func (b *builder) proposeSandbox() {
	if len(b.ws.Tasks) == 0 || b.sandbox == "" {
		return
	}
	mode := b.sandbox
	b.ws.Sandbox = &workspace.SandboxConfig{Mode: &mode}
	if mode == wire.SandboxReport {
		b.note("sandbox: every task runs in report mode: nothing is denied and caching is unchanged; vx last --violations lists what a task wrote outside its outputs; " +
			"add those paths to outputs or sandbox.write, then set \"mode\": \"enforce\"")
		return
	}
	b.note("sandbox: every task runs in enforce mode: a write outside its outputs or sandbox.write is denied (vx last --violations lists them)")
}
