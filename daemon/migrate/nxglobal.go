package migrate

import (
	"os"

	"github.com/bmatcuk/doublestar/v4"
)

// addGlobalInput makes rel, a workspace-root path or glob a target named
// as an input ({workspaceRoot}/…), one of globalInputs: vx task inputs are
// files of the task's project, so the nearest faithful place is the key of
// every task (broader than Nx: every task re-runs when it changes). A glob
// that matches no file is dropped, as it adds nothing to Nx's hash either.
// It reports whether rel was handled.
func (tr *nxTr) addGlobalInput(f *srcFile, item, rel string) bool {
	b := tr.b
	if tr.globalDone == nil {
		tr.globalDone = map[string]bool{}
	}
	if tr.globalDone[rel] {
		return true
	}
	tr.globalDone[rel] = true
	if !hasMeta(rel[:1]) {
		if m, err := doublestar.Glob(os.DirFS(b.root), rel); err != nil || len(m) == 0 {
			b.note("%s: the input {workspaceRoot}/%s matches no file; dropped", where(f, item), rel)
			return true
		}
	}
	b.ws.GlobalInputs = appendNew(b.ws.GlobalInputs, rel)
	b.note("%s: the input {workspaceRoot}/%s joined globalInputs, so every vx task re-runs when it changes (Nx re-runs the targets that name it)", where(f, item), rel)
	return true
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
