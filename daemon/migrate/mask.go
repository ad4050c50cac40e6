package migrate

import (
	"os"
	"strings"

	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/daemon/workspace"
)

// maskPlan masks the values the repository's vx configuration declares
// secret in what the plan shows of them: a kept file is shown as it
// stands, and it may hold a secret's inline value. File texts are masked on their
// decoded JSON strings, so an escaped value is masked too.
func maskPlan(p *Plan, environ []string) {
	if environ == nil {
		environ = os.Environ()
	}
	env := map[string]string{}
	for _, kv := range environ {
		if name, val, ok := strings.Cut(kv, "="); ok && name != "" {
			env[name] = val
		}
	}
	m := secret.NewMasker(workspace.SecretValues(p.Root, nil, env)...)
	if m.Empty() {
		return
	}
	// Only kept files: Apply never writes them, while a new or replaced
	// file's text is what Apply writes and must stay as proposed.
	for i := range p.Files {
		if p.Files[i].Action == ActionKept {
			p.Files[i].Text = string(m.JSON([]byte(p.Files[i].Text)))
		}
	}
	for i := range p.Todos {
		p.Todos[i].Reason = m.String(p.Todos[i].Reason)
		p.Todos[i].Item = m.String(p.Todos[i].Item)
	}
	for i := range p.Notes {
		p.Notes[i] = m.String(p.Notes[i])
	}
}
