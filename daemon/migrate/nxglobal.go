package migrate

import (
	"os"

	"github.com/bmatcuk/doublestar/v4"
)

// matchesFile reports whether rel, a workspace-root path or glob a
// target names as an input ({workspaceRoot}/…), matches a file; one that
// matches none is dropped with a note, as it adds nothing to Nx's hash
// either. A glob starting with a pattern is not walked and counts as
// matching.
func (tr *nxTr) matchesFile(f *srcFile, item, rel string) bool {
	b := tr.b
	if tr.globalDone == nil {
		tr.globalDone = map[string]bool{}
	}
	ok, done := tr.globalDone[rel]
	if done {
		return ok
	}
	ok = true
	if !hasMeta(rel[:1]) {
		if m, err := doublestar.Glob(os.DirFS(b.root), rel); err != nil || len(m) == 0 {
			b.note("%s: the input {workspaceRoot}/%s matches no file; dropped", where(f, item), rel)
			ok = false
		}
	}
	tr.globalDone[rel] = ok
	return ok
}

// lockfileInput translates externalDependencies (the versions of npm
// packages a target uses) into the lockfile in globalInputs: every task
// re-runs when any locked version changes.
func (tr *nxTr) lockfileInput(f *srcFile, item string) {
	b := tr.b
	for _, lf := range []string{"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"} {
		if b.exists(lf) {
			if !b.inGlobalInputs(lf) {
				b.ws.GlobalInputs = append(b.ws.GlobalInputs, lf)
				b.note("%s externalDependencies: %s joined globalInputs, so every vx task re-runs when a locked package version changes (Nx re-runs the targets that use that package)", where(f, item), lf)
			}
			return
		}
	}
	b.todo(f, 0, item, "externalDependencies: no lockfile here, so no package version joins the key; add the lockfile to globalInputs once there is one")
}

func hasMeta(s string) bool {
	for _, c := range s {
		switch c {
		case '*', '?', '[', '{':
			return true
		}
	}
	return false
}
