package migrate

import (
	"os"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vzn/vx/daemon/jsonc"
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
	if !strings.ContainsAny(rel[:1], "*?[{") {
		if m, err := doublestar.Glob(os.DirFS(b.root), rel); err != nil || len(m) == 0 {
			b.note("%s: the input {workspaceRoot}/%s matches no file; dropped", where(f, item), rel)
			ok = false
		}
	}
	tr.globalDone[rel] = ok
	return ok
}

// externalDefault is the input standing for the packages Nx hashes for a
// graph target that lists no externalDependencies: its executor's package
// ("npm:@nx/jest"), or for run-commands and run-script every locked
// package (the lockfile, "/package-lock.json"); "" outside graph mode, for
// a no-op, or without a lockfile.
func (tr *nxTr) externalDefault(n *jsonc.Node, np *nxProject) string {
	if np == nil || !np.graph {
		return ""
	}
	ex := n.Get("executor")
	if ex == nil || ex.Kind != jsonc.String || slices.Contains(noopExecutors, ex.Str) {
		return ""
	}
	if !slices.Contains(runCommandsExecutors, ex.Str) && !slices.Contains(runScriptExecutors, ex.Str) {
		pkg, _, _ := strings.Cut(ex.Str, ":")
		return "npm:" + pkg
	}
	for _, lf := range []string{"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"} {
		if tr.b.exists(lf) {
			return "/" + lf
		}
	}
	return ""
}
