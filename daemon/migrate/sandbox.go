package migrate

import (
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// proposeSandbox gives migrated tasks a report-mode sandbox: nothing is
// denied, and each run records what a task writes outside its outputs or
// connects to, so the declarations can be completed before enforce.
func (b *builder) proposeSandbox() {
	if len(b.ws.Tasks) == 0 {
		return
	}
	mode := wire.SandboxReport
	b.ws.Sandbox = &workspace.SandboxConfig{Mode: &mode}
	b.note("sandbox: every task runs in report mode: nothing is denied, and vx last lists what a task wrote outside its outputs; add those paths to outputs or sandbox.write, then set \"mode\": \"enforce\"")
}
