package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/vzn/vx/daemon/jsonc"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/workspace"
)

// Options tunes PlanInit and Apply. A nil *Options is the zero value.
type Options struct {
	// Force replaces an existing vx.workspace.json (and vx.project.json
	// files) instead of keeping them.
	Force bool
	// Environ is the environment secret variables without an inline value
	// are read from, to mask them in the plan; nil is the process's own.
	Environ []string
	// RunNx lets PlanInit run the repository's own Nx (its code and its
	// plugins) to read the resolved project graph of an Nx workspace.
	// vx init on the command line sets it; the planInit tool does not.
	RunNx bool
	// Sandbox is the mode of the sandbox proposed for every task
	// (wire.SandboxReport or wire.SandboxEnforce), or "" for none.
	Sandbox string
}

// File is one file the plan proposes.
type File struct {
	Path   string `json:"path"`   // relative to the root, slash-separated
	Action string `json:"action"` // "new", "kept" (exists, left alone), "replaced" or "appended" (.gitignore)
	Text   string `json:"text"`   // the proposed text; for "kept", the current text; for "appended", the lines added
}

// Todo is something the migration could not translate exactly and a person
// must decide.
type Todo struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Col    int    `json:"col,omitempty"`
	Item   string `json:"item,omitempty"` // e.g. "tasks.dev.persistent"
	Reason string `json:"reason"`
}

// Plan is what vx init would write, and what is left to a person.
type Plan struct {
	Root           string   `json:"root"`
	Source         string   `json:"source"`         // "turbo", "nx", "package.json", "pnpm" or "none"
	PackageManager string   `json:"packageManager"` // "npm", "pnpm", "yarn", "bun" or "" without package.json
	Files          []File   `json:"files"`
	Todos          []Todo   `json:"todos"`
	Notes          []string `json:"notes"`
	Next           []string `json:"next"`
}

// Actions of a File.
const (
	ActionNew      = "new"
	ActionKept     = "kept"
	ActionReplaced = "replaced"
)

// Sources of a Plan.
const (
	sourceTurbo       = "turbo"
	sourceNx          = "nx"
	sourcePackageJSON = "package.json"
	sourcePnpm        = "pnpm"
	sourceNone        = "none"
)

// wsConfig is the proposed vx.workspace.json. It mirrors the keys of
// workspace.Config without "mcp", whose default needs no line.
type wsConfig struct {
	Projects     []string                        `json:"projects,omitempty"`
	GlobalInputs []string                        `json:"globalInputs,omitempty"`
	Env          []string                        `json:"env,omitempty"`
	PassEnv      []string                        `json:"passEnv,omitempty"`
	Workers      int                             `json:"workers,omitempty"`
	Tasks        map[string]workspace.TaskConfig `json:"tasks,omitempty"`
	// Sandbox is proposed only when asked (vx init --sandbox MODE).
	Sandbox *workspace.SandboxConfig `json:"sandbox,omitempty"`
	// UI keeps turbo.json's choice of live view or streamed lines.
	UI string `json:"ui,omitempty"`
}

// srcFile is a parsed configuration file of the repository.
type srcFile struct {
	rel  string
	src  []byte
	root *jsonc.Node
}

// pkg is one workspace package (a future vx project).
type pkg struct {
	dir     string // slash-separated, relative to the root
	name    string // package.json name, else the directory name
	scripts map[string]string
	nx      *jsonc.Node // package.json "nx" key
}

type pkgJSON struct {
	Name           string            `json:"name"`
	Scripts        map[string]string `json:"scripts"`
	Workspaces     json.RawMessage   `json:"workspaces"`
	PackageManager string            `json:"packageManager"`
}

type builder struct {
	ctx      context.Context
	root     string
	force    bool
	runNx    bool   // Options.RunNx
	sandbox  string // Options.Sandbox
	plan     *Plan
	rootPkg  *pkgJSON
	from     string // what the header comment names, e.g. "turbo.json"
	pkgs     []*pkg
	byName   map[string]*pkg
	byDir    map[string]*pkg
	ws       wsConfig
	projects map[string]*workspace.ProjectConfig // by project dir
}

// PlanInit inspects the repository at root and proposes its vx
// configuration. It reads only; nothing is written. A configuration file
// that does not parse becomes a todo with its line and column, and the rest
// is still migrated.
func PlanInit(ctx context.Context, root string, opts *Options) (*Plan, error) {
	if opts == nil {
		opts = &Options{}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolving root %q: %w", root, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("reading root: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("root %s is not a directory", abs)
	}
	b := &builder{
		ctx: ctx, root: abs, force: opts.Force, runNx: opts.RunNx, sandbox: opts.Sandbox,
		plan:     &Plan{Root: abs, Files: []File{}, Todos: []Todo{}, Notes: []string{}, Next: []string{}},
		byName:   map[string]*pkg{},
		byDir:    map[string]*pkg{},
		ws:       wsConfig{Tasks: map[string]workspace.TaskConfig{}},
		projects: map[string]*workspace.ProjectConfig{},
	}
	if err := b.run(); err != nil {
		return nil, err
	}
	maskPlan(b.plan, opts.Environ)
	return b.plan, nil
}

func (b *builder) run() error {
	if f := b.readJSON("package.json"); f != nil {
		var p pkgJSON
		if err := f.root.Decode(&p); err != nil {
			b.todo(f, f.root.Off, "", fmt.Sprintf("package.json does not have the shape of a package manifest (%v); its workspaces and scripts were not read", err))
		} else {
			b.rootPkg = &p
		}
	}
	b.plan.PackageManager = b.packageManager()
	globs, origin := b.workspaceGlobs()
	if err := b.ctx.Err(); err != nil {
		return err
	}

	turboFile := b.turboConfig("")
	turbo := turboFile != ""
	nx := b.exists("nx.json")
	switch {
	case turbo:
		b.plan.Source, b.from = sourceTurbo, turboFile
	case nx:
		b.plan.Source, b.from = sourceNx, "nx.json"
	case origin == "pnpm-workspace.yaml":
		b.plan.Source, b.from = sourcePnpm, "pnpm-workspace.yaml"
	case b.rootPkg != nil:
		b.plan.Source, b.from = sourcePackageJSON, "package.json"
	default:
		b.plan.Source = sourceNone
	}
	if turbo && nx {
		b.todo(nil, 0, "", "nx.json: this repository has both turbo.json and nx.json; only turbo.json was translated")
		b.plan.Todos[len(b.plan.Todos)-1].File = "nx.json"
	}

	b.ws.Projects = globs
	if len(globs) > 0 {
		b.note("projects: %s, as %s lists them; keep both lists in step when you add a package", strings.Join(globs, ", "), origin)
	}
	b.discover(globs)
	if err := b.ctx.Err(); err != nil {
		return err
	}

	translated := false
	switch b.plan.Source {
	case sourceTurbo:
		if f := b.readJSON(turboFile); f != nil {
			translated = b.turbo(f)
		}
	case sourceNx:
		if f := b.readJSON("nx.json"); f != nil {
			translated = b.nx(f)
		}
	}
	if !translated {
		if b.plan.Source == sourceTurbo || b.plan.Source == sourceNx {
			b.from = "package.json"
			b.note("%s could not be read, so tasks were proposed from package.json scripts; "+
				"fix it and run vx init --force to translate it", map[string]string{sourceTurbo: turboFile, sourceNx: "nx.json"}[b.plan.Source])
		}
		b.scripts()
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	if b.plan.Source == sourceNone {
		b.todo(nil, 0, "projects", "no package.json, pnpm-workspace.yaml, turbo.json or nx.json here: list the project directories in projects and declare tasks with a command")
		b.plan.Todos[len(b.plan.Todos)-1].File = workspace.ConfigFile
	}
	b.prePostScripts()
	b.proposeSandbox()
	if err := b.files(); err != nil {
		return err
	}
	b.gitignore()
	return nil
}

// files renders the proposed files and decides kept/replaced.
func (b *builder) files() error {
	header := "// generated by vx init"
	if b.from != "" {
		header += " from " + b.from
	}
	text, err := render(header, b.ws)
	if err != nil {
		return err
	}
	b.sortTodos()
	b.addFile(workspace.ConfigFile, text)
	dirs := make([]string, 0, len(b.projects))
	for d := range b.projects {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		text, err := render(header, b.projects[d])
		if err != nil {
			return err
		}
		b.addFile(d+"/"+workspace.ProjectFile, text)
	}
	b.next()
	return nil
}

// sortTodos orders todos by file (in the order files were first named)
// and then by position, so they read top to bottom.
func (b *builder) sortTodos() {
	rank := map[string]int{}
	for _, t := range b.plan.Todos {
		if _, ok := rank[t.File]; !ok {
			rank[t.File] = len(rank)
		}
	}
	sort.SliceStable(b.plan.Todos, func(i, j int) bool {
		a, c := b.plan.Todos[i], b.plan.Todos[j]
		if a.File != c.File {
			return rank[a.File] < rank[c.File]
		}
		if a.Line != c.Line {
			return a.Line < c.Line
		}
		return a.Col < c.Col
	})
}

func (b *builder) addFile(rel, text string) {
	f := File{Path: rel, Action: ActionNew, Text: text}
	if cur, err := os.ReadFile(filepath.Join(b.root, filepath.FromSlash(rel))); err == nil {
		if b.force {
			f.Action = ActionReplaced
		} else {
			f.Action, f.Text = ActionKept, string(cur)
			b.note("%s exists and is kept; vx init --force replaces it with the proposal", rel)
		}
	}
	b.plan.Files = append(b.plan.Files, f)
}

func (b *builder) next() {
	p := b.plan
	for _, f := range p.Files {
		if f.Action == ActionKept {
			p.Next = append(p.Next, "vx init --dry --force --format json  # see the proposal for the kept files")
			break
		}
	}
	if len(p.Todos) > 0 {
		p.Next = append(p.Next, fmt.Sprintf("resolve the %d todo(s) of this plan in the files it names", len(p.Todos)))
	}
	p.Next = append(p.Next, "vx show  # every task's resolved definition, per project")
	task := "build"
	if _, ok := b.ws.Tasks["build"]; !ok {
		task = ""
		for name := range b.ws.Tasks {
			if !strings.Contains(name, "#") && (task == "" || name < task) {
				task = name
			}
		}
	}
	if task != "" {
		p.Next = append(p.Next, "vx run "+task+" --dry  # what would run, in which order, cached or not")
	}
	p.Next = append(p.Next, "vx lock  # record each task's definition in vx.lock for review")
}

// render is header, then v as JSON with a 2-space indent. Key order is the
// struct order, and map keys sorted, so the text is stable.
func render(header string, v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("rendering config: %w", err)
	}
	return header + "\n" + buf.String(), nil
}

func (b *builder) exists(rel string) bool {
	st, err := os.Stat(filepath.Join(b.root, filepath.FromSlash(rel)))
	return err == nil && !st.IsDir()
}

// readJSON parses a JSONC file of the repository. A missing file is nil; a
// file that does not parse is nil and a todo at the error's position.
func (b *builder) readJSON(rel string) *srcFile {
	src, err := os.ReadFile(filepath.Join(b.root, filepath.FromSlash(rel)))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			b.todo(&srcFile{rel: rel}, 0, "", fmt.Sprintf("could not read %s: %v", rel, err))
		}
		return nil
	}
	doc, err := jsonc.Parse(src)
	if err != nil {
		var se *jsonc.Error
		if errors.As(err, &se) {
			b.todo(&srcFile{rel: rel, src: src}, se.Off, "", fmt.Sprintf("syntax error: %s; %s was not translated", se.Msg, rel))
		}
		return nil
	}
	root := doc.Root()
	f := &srcFile{rel: rel, src: src, root: root}
	if root.Kind != jsonc.Object {
		b.todo(f, root.Off, "", fmt.Sprintf("expected a JSON object, found %s; %s was not translated", root.Kind, rel))
		return nil
	}
	return f
}

// todo records a todo; f may be nil, and off is a byte offset into f.
// notObject reports v, the value of item, where it is not an object (and
// so not translated) and says so.
func (b *builder) notObject(f *srcFile, v *jsonc.Node, item string) bool {
	if v.Kind == jsonc.Object {
		return false
	}
	b.todo(f, v.Off, item, fmt.Sprintf("expected an object, found %s; not translated", v.Kind))
	return true
}

// otherKey handles a root key of file (nx.json, turbo.json) that no case
// translates: a note where dropped gives why vx has no need of it, a to-do
// where the key is unknown.
func (b *builder) otherKey(f *srcFile, m jsonc.Member, file string, dropped map[string]string) {
	if why, ok := dropped[m.Key]; ok {
		b.note("%s %s dropped: %s", file, m.Key, why)
		return
	}
	b.todo(f, m.KeyOff, m.Key, fmt.Sprintf("unknown %s key %q was not translated", file, m.Key))
}

func (b *builder) todo(f *srcFile, off int, item, reason string) {
	t := Todo{Item: item, Reason: reason}
	if f != nil {
		t.File = f.rel
		if f.src != nil {
			t.Line, t.Col = jsonc.Position(f.src, off)
		}
	}
	for _, have := range b.plan.Todos {
		if have == t {
			return // a named input expanded into many targets
		}
	}
	b.plan.Todos = append(b.plan.Todos, t)
}

func (b *builder) note(format string, args ...any) {
	b.plan.Notes = append(b.plan.Notes, fmt.Sprintf(format, args...))
}

// Apply writes the plan's new and replaced files under root (plan.Root
// when root is empty) and returns their paths, relative to the root. Each
// file is written to a temporary file and renamed into place. Without
// opts.Force, Apply writes nothing when vx.workspace.json exists or a file
// it would write exists.
func Apply(plan *Plan, root string, opts *Options) ([]string, error) {
	if plan == nil {
		return nil, errors.New("applying plan: no plan given")
	}
	if opts == nil {
		opts = &Options{}
	}
	if root == "" {
		root = plan.Root
	}
	// An existing workspace config means vx init has run here: say so even
	// when the plan keeps it, rather than write project files beside it.
	if _, err := os.Stat(filepath.Join(root, workspace.ConfigFile)); err == nil && !opts.Force {
		return nil, fmt.Errorf("%s already exists in %s; vx init keeps it (run vx init --force to replace it)", workspace.ConfigFile, root)
	}
	todo, err := applyTargets(plan, root, opts.Force)
	if err != nil {
		return nil, err
	}
	if err := stageFiles(plan, todo); err != nil {
		return nil, err
	}
	written, err := renameStaged(todo)
	if err != nil {
		return written, err
	}
	for _, f := range plan.Files {
		if f.Path == gitIgnoreFile {
			if wrote, err := applyGitIgnore(root); err != nil {
				return written, err
			} else if wrote {
				written = append(written, gitIgnoreFile)
			}
		}
	}
	return written, nil
}

// pendingFile is a plan file Apply writes: its path in the plan, where it
// goes, and the temp file holding it until it is renamed there.
type pendingFile struct{ rel, dst, tmp string }

// applyTargets lists the plan's files to write under root, refusing an
// unknown action, a path outside root, or (unless force) a file already
// there.
func applyTargets(plan *Plan, root string, force bool) ([]pendingFile, error) {
	var todo []pendingFile
	for _, f := range plan.Files {
		if f.Action == ActionKept || f.Path == gitIgnoreFile {
			continue // .gitignore: applyGitIgnore
		}
		if f.Action != ActionNew && f.Action != ActionReplaced {
			return nil, fmt.Errorf("applying plan: file %s has action %q (want new, kept or replaced)", f.Path, f.Action)
		}
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return nil, fmt.Errorf("applying plan: file path %q is not inside the workspace root", f.Path)
		}
		dst := filepath.Join(root, filepath.FromSlash(f.Path))
		if _, err := os.Lstat(dst); err == nil && !force {
			return nil, fmt.Errorf("%s already exists in %s; vx init keeps it (run vx init --force to replace it)", f.Path, root)
		}
		todo = append(todo, pendingFile{rel: f.Path, dst: dst})
	}
	return todo, nil
}

// removeTemps removes the temp files of todo not yet renamed.
func removeTemps(todo []pendingFile) {
	for _, p := range todo {
		if p.tmp != "" {
			os.Remove(p.tmp)
		}
	}
}

// stageFiles writes each file of todo, with its text from plan, to a
// synced temp file beside its destination. On an error it removes the
// temp files.
func stageFiles(plan *Plan, todo []pendingFile) error {
	texts := map[string]string{}
	for _, f := range plan.Files {
		texts[f.Path] = f.Text
	}
	for i := range todo {
		p := &todo[i]
		dir := filepath.Dir(p.dst)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			removeTemps(todo)
			return fmt.Errorf("creating %s: %w", dir, err)
		}
		tmp, err := os.CreateTemp(dir, ".vx-init-*.tmp")
		if err != nil {
			removeTemps(todo)
			return fmt.Errorf("writing %s: %w", p.rel, err)
		}
		p.tmp = tmp.Name()
		_, werr := tmp.WriteString(texts[p.rel])
		if werr == nil {
			werr = tmp.Sync()
		}
		cerr := tmp.Close()
		if werr == nil {
			werr = cerr
		}
		if werr == nil {
			werr = os.Chmod(p.tmp, 0o644)
		}
		if werr != nil {
			removeTemps(todo)
			return fmt.Errorf("writing %s: %w", p.rel, werr)
		}
	}
	return nil
}

// renameStaged renames each staged temp file to its destination and
// returns the plan paths written; on an error, those before it and the
// error, the rest's temp files removed.
func renameStaged(todo []pendingFile) ([]string, error) {
	written := make([]string, 0, len(todo))
	for i := range todo {
		p := &todo[i]
		if err := os.Rename(p.tmp, p.dst); err != nil {
			removeTemps(todo)
			return written, fmt.Errorf("writing %s: %w", p.rel, err)
		}
		p.tmp = ""
		written = append(written, p.rel)
	}
	return written, nil
}
