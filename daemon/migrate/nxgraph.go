package migrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vzn/vx/daemon/jsonc"
)

// Bounds on asking Nx for its project graph.
const (
	nxGraphTimeout  = 3 * time.Minute
	nxGraphMaxBytes = 64 << 20 // the graph file
	nxGraphMaxLog   = 16 << 10 // what nx prints, kept for a todo
)

// nxBin is the repository's own Nx CLI, "" when it is not installed.
func (b *builder) nxBin() string {
	bin := filepath.Join(b.root, "node_modules", ".bin", "nx")
	if st, err := os.Stat(bin); err == nil && !st.IsDir() {
		return bin
	}
	if b.exists("node_modules/nx/bin/nx.js") {
		return filepath.Join(b.root, "node_modules", "nx", "bin", "nx.js")
	}
	return ""
}

// nxNotInstalled is the todo for an Nx workspace whose Nx is not
// installed: without it the targets its plugins infer cannot be listed.
func (b *builder) nxNotInstalled(f *srcFile) {
	install := b.plan.PackageManager + " install"
	if b.plan.PackageManager == "" {
		install = "npm install"
	}
	why := "Nx is not installed here (no node_modules/.bin/nx)"
	if pj := b.readJSON("package.json"); pj != nil {
		for _, key := range []string{"devDependencies", "dependencies"} {
			if pj.root.Get(key).Get("nx") != nil {
				why = fmt.Sprintf("Nx is in package.json %s but not in node_modules", key)
				break
			}
		}
	}
	b.todo(f, 0, "", fmt.Sprintf("%s: run %s, then vx init --force, so that vx asks Nx for every target, including those its plugins infer, "+
		"and the project dependencies it finds in imports; until then only project.json targets and package.json scripts were translated", why, install))
}

// limitedBuffer keeps the last max bytes written to it.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.buf.Write(p)
	if over := l.buf.Len() - l.max; over > 0 {
		l.buf.Next(over)
	}
	return len(p), nil
}

// nxGraph runs the repository's Nx (no daemon, no cloud, bounded in time
// and output) to write its resolved project graph, and parses it. The
// graph holds every project and every target as Nx resolves them: those
// of project.json, package.json and the plugins' inferred targets, with
// targetDefaults applied.
func (b *builder) nxGraph(bin string) (*jsonc.Node, error) {
	tmp, err := os.MkdirTemp("", "vx-init-nx-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "graph.json")
	ctx, cancel := context.WithTimeout(b.ctx, nxGraphTimeout)
	defer cancel()
	args := []string{"graph", "--file=" + out}
	name := bin
	if strings.HasSuffix(bin, ".js") {
		name, args = "node", append([]string{bin}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.root
	cmd.Env = append(os.Environ(), "NX_DAEMON=false", "NX_NO_CLOUD=true", "NX_TUI=false", "NX_CACHE_PROJECT_GRAPH=false",
		"NX_WORKSPACE_DATA_DIRECTORY="+filepath.Join(tmp, "workspace-data"))
	cmd.Stdin = nil
	log := &limitedBuffer{max: nxGraphMaxLog}
	cmd.Stdout, cmd.Stderr = log, log
	processGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", nxGraphTimeout)
		}
		return nil, fmt.Errorf("nx graph failed (%v): %s", err, lastLines(log.buf.String(), 6))
	}
	fh, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("nx graph wrote no graph: %v: %s", err, lastLines(log.buf.String(), 6))
	}
	defer fh.Close()
	src, err := io.ReadAll(io.LimitReader(fh, nxGraphMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(src) > nxGraphMaxBytes {
		return nil, fmt.Errorf("the graph nx wrote is over %d MiB", nxGraphMaxBytes>>20)
	}
	doc, err := jsonc.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("the graph nx wrote does not parse: %v", err)
	}
	g := doc.Root().Get("graph")
	if g == nil || g.Get("nodes") == nil || g.Get("nodes").Kind != jsonc.Object {
		return nil, errors.New("the graph nx wrote has no graph.nodes")
	}
	return g, nil
}

// lastLines is the last n non-empty lines of s, joined by " | ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// nxGraphProjects registers each project of Nx's graph and returns them
// with their resolved targets, and each one's project dependencies (Nx
// finds them in imports too, which vx does not read).
func (b *builder) nxGraphProjects(tr *nxTr, g *jsonc.Node) []*nxProject {
	covered := map[string]bool{}
	for _, d := range b.matchDirs(b.ws.Projects) {
		covered[d] = true
	}
	var out []*nxProject
	for _, m := range g.Get("nodes").Members {
		data := m.Val.Get("data")
		root := data.Get("root")
		if root == nil || root.Kind != jsonc.String {
			continue
		}
		dir := strings.Trim(filepath.ToSlash(filepath.Clean(root.Str)), "/")
		rel := dir + "/project.json"
		if dir == "." || dir == "" {
			b.todo(&srcFile{rel: "project.json"}, 0, m.Key, fmt.Sprintf("Nx project %q is the workspace root (an Nx standalone project): vx's root is not a project; "+
				"move the code into a directory listed in projects, or declare its targets as root tasks (//#name)", m.Key))
			continue
		}
		if !b.exists(rel) {
			rel = dir + "/package.json"
		}
		p := b.addPkg(dir)
		np := &nxProject{p: p, f: &srcFile{rel: rel, root: data}, named: tr.projectNamed(data.Get("namedInputs")), tgts: data.Get("targets"), nxName: m.Key, graph: true}
		tr.byNx[m.Key] = p
		if p.name != m.Key && !b.exists(dir+"/package.json") {
			b.rename(p, m.Key)
		}
		if !covered[dir] {
			b.ws.Projects = append(b.ws.Projects, dir)
		}
		out = append(out, np)
	}
	b.sortPkgs()
	sort.Slice(out, func(i, j int) bool { return out[i].p.dir < out[j].p.dir })
	tr.graphDeps = map[string][]string{}
	for _, m := range membersOf(g.Get("dependencies")) {
		for _, d := range m.Val.Items {
			if t := d.Get("target"); t != nil && t.Kind == jsonc.String && tr.byNx[t.Str] != nil && t.Str != m.Key {
				tr.graphDeps[m.Key] = appendNew(tr.graphDeps[m.Key], tr.byNx[t.Str].name)
			}
		}
	}
	return out
}

// nxResolvedGraph asks the repository's Nx for its resolved graph when
// Nx is installed; nil, with a todo saying why, when it cannot.
func (b *builder) nxResolvedGraph(f *srcFile) *jsonc.Node {
	bin := b.nxBin()
	if bin == "" {
		b.nxNotInstalled(f)
		return nil
	}
	if !b.runNx {
		b.todo(f, 0, "", "the targets Nx plugins infer were not read: only vx init on the command line runs the repository's Nx (its code) to ask for them; "+
			"until then only project.json targets and package.json scripts were translated")
		return nil
	}
	g, err := b.nxGraph(bin)
	if err != nil {
		b.todo(f, 0, "", fmt.Sprintf("could not read Nx's resolved graph, so the targets Nx plugins infer were not translated (only project.json targets and package.json scripts): %v", err))
		return nil
	}
	return g
}
