package plugins

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/plugin"
)

// Input is what one plugin's inference needs from the workspace.
type Input struct {
	Decl     Decl
	Projects []plugin.Project
	// List answers the workspace's files (workspace-relative, slash
	// separated); it is called only when the plugin offers tasks.
	List func() ([]string, error)
	// KeepLastGood answers the last good answers, marked Stale, when the
	// plugin fails now (vxd does; a one-shot vx does not).
	KeepLastGood bool
	// Seen, shared by the plugins of one load, stats and hashes each
	// matched file once however many plugins match it (nil: not shared).
	Seen *Seen
	// Begun is what Begin did for this plugin (nil: nothing yet).
	Begun *Begun
}

// Begun is the part of one plugin's warm load that needs no project:
// its entry resolved, its stored answers read, and, when the stored
// describe answer still holds, the files its globs match listed and
// stat'ed (into the Seen). A load does it while its projects load.
type Begun struct {
	entry Entry
	err   error
	prev  *stored
}

// Begin does in's project-free part (in.Projects is not read); no
// plugin process is started.
func (r Runner) Begin(in Input) *Begun {
	b := &Begun{prev: loadStored(r.Root, in.Decl.Spec)}
	if b.entry, b.err = resolve(r.Root, in.Decl); b.err != nil || b.prev == nil {
		return b
	}
	d := b.prev.Describe
	if b.prev.DescribeKey != describeKey(in.Decl, b.entry) || !offers(d, plugin.OffersTasks) {
		return b
	}
	all, err := in.List()
	if err != nil {
		return b
	}
	files := in.Seen.matchScoped(d.Globs, in.Decl.Scope, all)
	if len(files) > plugin.MaxFiles {
		return b
	}
	in.Seen.look(r.Root, files)
	return b
}

// tasksKey is what a tasks answer is stored for: the describe answer's
// key, the projects' (projectsKey) and each matched file with its content
// hash, in listing order.
func tasksKey(describeKey, projectsKey string, files []fileRec) string {
	parts := make([]string, 0, 3+2*len(files))
	parts = append(parts, "tasks", describeKey, projectsKey)
	for _, f := range files {
		parts = append(parts, f.Path, f.Hash)
	}
	return key(parts...)
}

// projectsKey is the key of the projects a tasks request carries: the
// XXH3-128 (as vx hashes a file's content) of each name, root and script
// (name and command), each length-prefixed (a varint: most are short).
// A load takes it of every project, each script included: SHA-256 of the
// 85 KB of 1,000 small projects was 2% of a no-op run's instructions.
func projectsKey(projects []plugin.Project) string {
	b := make([]byte, 0, len("projects")+len(projects)*96)
	b = append(b, "projects"...)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for _, p := range projects {
		str(p.Name)
		str(p.Root)
		b = binary.AppendUvarint(b, uint64(len(p.Scripts)))
		for _, sc := range p.Scripts {
			str(sc.Name)
			str(sc.Command)
		}
	}
	sum := xxh3.Hash128(b).Bytes()
	return hex.EncodeToString(sum[:])
}

// describeKey is what a describe answer is stored for: the plugin's
// identity, options and timeout.
func describeKey(d Decl, e Entry) string {
	return key("describe", e.Identity, string(d.Options), d.timeout().String())
}

// Result is one plugin's inference.
type Result struct {
	Decl     Decl
	Entry    Entry
	Describe *plugin.Describe // nil when describe failed
	Tasks    []plugin.Task
	Files    []string // the files its globs matched
	Err      error    // why the plugin was refused (masked)
	Stale    bool     // Describe and Tasks are the last good answers, not current
	Started  int      // plugin processes started
	// Unstored says why the answer, good, was not stored ("": it was, or
	// the stored one still holds).
	Unstored string
}

// Infer resolves in.Decl, asks describe and tasks (each only when its
// stored answer's key no longer holds) and stores what is new.
func (r Runner) Infer(ctx context.Context, in Input) Result {
	res := Result{Decl: in.Decl}
	in.Projects = in.Decl.Scope.projects(in.Projects) // what a request carries, and what its answer holds for
	b := in.Begun
	if b == nil {
		b = &Begun{prev: loadStored(r.Root, in.Decl.Spec)}
		b.entry, b.err = resolve(r.Root, in.Decl)
	}
	prev := b.prev
	if prev != nil && prev.holdsSecret(r.Masker) {
		// Begin read it before the secrets were known (they may be
		// declared in the projects' configurations).
		_ = os.Remove(storePath(r.Root, in.Decl.Spec))
		prev = nil
	}
	// described is the describe answer when the tasks stage fails after
	// it: what the plugin is and its globs stay known (vx info shows
	// them, vxd's watch asks again when a matched file changes), its
	// verbs are left out with its tasks.
	var described *plugin.Describe
	fail := func(err error) Result {
		res.Err = err
		switch {
		case in.KeepLastGood && prev != nil && prev.tasksHold(in.Projects):
			res.Describe, res.Tasks, res.Files, res.Stale = prev.Describe, prev.Tasks, prev.paths(), true
		case described != nil:
			d := *described
			d.Commands = nil
			res.Describe, res.Tasks, res.Files = &d, nil, nil
		default:
			res.Describe, res.Tasks, res.Files = nil, nil, nil
		}
		return res
	}
	e, err := b.entry, b.err
	if err != nil {
		return fail(err)
	}
	res.Entry = e
	cur := &stored{Spec: in.Decl.Spec, Identity: e.Identity, At: time.Now().UTC()}
	cur.DescribeKey = describeKey(in.Decl, e)
	if prev != nil && prev.DescribeKey == cur.DescribeKey {
		cur.Describe = prev.Describe
	} else if cur.Describe, err = r.describe(ctx, in.Decl, e, &res); err != nil {
		return fail(err)
	}
	res.Describe, described = cur.Describe, cur.Describe
	if offers(cur.Describe, plugin.OffersTasks) {
		if err := r.tasks(ctx, in, e, prev, cur, &res); err != nil {
			return fail(err)
		}
	}
	if prev == nil || prev.DescribeKey != cur.DescribeKey || prev.TasksKey != cur.TasksKey || cur.rehashed > 0 {
		// A store that cannot be written costs the next load a request.
		if err := cur.save(r.Root, r.Masker); errors.Is(err, errHoldsSecret) {
			res.Unstored = "its answer holds a value declared secret, which vx does not store in clear, so every load asks the plugin again: " +
				"a task should take a secret from its environment (passEnv), not have it written into its command"
		}
	}
	return res
}

// describe asks the describe stage.
func (r Runner) describe(ctx context.Context, d Decl, e Entry, res *Result) (*plugin.Describe, error) {
	res.Started++
	b, stderr, err := r.Call(ctx, d, e, plugin.Request{Stage: plugin.StageDescribe})
	if err != nil {
		return nil, err
	}
	var a plugin.Describe
	if err = r.decodeAnswer(b, &a); err == nil {
		err = checkDescribe(&a, r.mask)
	}
	if err != nil {
		return nil, &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("describe: " + err.Error()), Stderr: stderr}
	}
	// What is shown of it (vx info, vx help, MCP tools) is masked.
	a.Version = r.mask(a.Version)
	for i, c := range a.Commands {
		a.Commands[i].Summary = r.mask(c.Summary)
		if len(c.InputSchema) > 0 {
			a.Commands[i].InputSchema = r.maskJSON(c.InputSchema)
		}
	}
	return &a, nil
}

// tasks matches the globs, and asks the tasks stage unless the stored
// answer was given for the same files, contents and projects.
func (r Runner) tasks(ctx context.Context, in Input, e Entry, prev, cur *stored, res *Result) error {
	d := in.Decl
	all, err := in.List()
	if err != nil {
		return &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("listing the workspace's files: " + err.Error())}
	}
	files := in.Seen.matchScoped(cur.Describe.Globs, d.Scope, all)
	if len(files) > plugin.MaxFiles {
		return &pluginError{Plugin: d.Spec, File: d.File, Reason: fmt.Sprintf("its globs match %d files; at most %d", len(files), plugin.MaxFiles)}
	}
	cur.ProjectsKey = in.Seen.projectsKey(in.Projects)
	cur.Files = make([]fileRec, 0, len(files))
	var at time.Time
	var known []fileRec
	if prev != nil {
		at, known = prev.At, prev.Files
	}
	// same: the answer stored was given for these projects and files,
	// each of the same content, so its key is this one (not hashed again).
	same := prev != nil && prev.TasksKey != "" && prev.DescribeKey == cur.DescribeKey && prev.ProjectsKey == cur.ProjectsKey && len(known) == len(files)
	in.Seen.statAll(files)
	find := recordFinder(known)
	for i, f := range files {
		old, ok := find(f)
		rec, err := r.fileRec(in.Seen, f, &old, ok, at)
		// Storing a read file's stamp spares the next load reading it,
		// unless the stamp cannot vouch for it (a link's) and is stored.
		if !ok || rec.Stamp != old.Stamp || rec.Sum != old.Sum || (!old.trusted(rec.Stamp, at) && (rec.Stamp.vouches() || rec.Hash != old.Hash)) {
			cur.rehashed++
		}
		if err != nil {
			return &pluginError{Plugin: d.Spec, File: f, Reason: r.mask("reading a matched file: " + err.Error())}
		}
		cur.Files = append(cur.Files, rec)
		same = same && known[i].Path == f && known[i].Hash == rec.Hash
	}
	res.Files = files
	if same {
		cur.TasksKey = prev.TasksKey
	} else {
		cur.TasksKey = tasksKey(cur.DescribeKey, cur.ProjectsKey, cur.Files)
	}
	if prev != nil && prev.TasksKey == cur.TasksKey {
		// Checked when the plugin gave them, against these files and
		// projects (the key), and sealed since (loadStored).
		cur.Tasks, res.Tasks = prev.Tasks, prev.Tasks
		return nil
	}
	fileSet, roots := setOf(files), projectRoots(in.Projects)
	res.Started++
	b, stderr, err := r.Call(ctx, d, e, plugin.Request{Stage: plugin.StageTasks, Files: nonNil(files), Projects: nonNilProjects(in.Projects)})
	if err != nil {
		return err
	}
	var a plugin.TasksAnswer
	if err := r.decodeAnswer(b, &a); err != nil {
		return &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("tasks: " + err.Error()), Stderr: stderr}
	}
	if bad, err := checkTasks(a.Tasks, fileSet, roots); err != nil {
		if bad == "" {
			bad = d.File
		}
		return &pluginError{Plugin: d.Spec, File: bad, Reason: r.mask("tasks: " + err.Error()), Stderr: stderr}
	}
	cur.Tasks, res.Tasks = a.Tasks, a.Tasks
	return nil
}

// tasksHold reports whether s's tasks pass a tasks answer's checks
// against the files it was given and the projects now (the file may have
// been edited, the projects changed).
func (s *stored) tasksHold(projects []plugin.Project) bool {
	_, err := checkTasks(s.Tasks, setOf(s.paths()), projectRoots(projects))
	return err == nil
}

func setOf(files []string) map[string]bool {
	out := make(map[string]bool, len(files))
	for _, f := range files {
		out[f] = true
	}
	return out
}

// projectRoots maps each project's name to its root.
func projectRoots(projects []plugin.Project) map[string]string {
	out := make(map[string]string, len(projects))
	for _, p := range projects {
		out[p.Name] = p.Root
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilProjects(s []plugin.Project) []plugin.Project {
	if s == nil {
		return []plugin.Project{}
	}
	return s
}

// optionsJSON is the JSON a declaration's options are sent as ({} when none).
func optionsJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("{}")
	}
	return raw
}

// fileRec hashes the matched file f, or takes the hash of old, its
// record in the answer stored at at (known: there is one), when it stats
// as it did then (old's stamp is then decoded, in place).
//
// Where the run's journal answers (seen.sum), a file whose sum is the
// one recorded holds its content then: old is taken whole, without a
// stat. Otherwise the file is stamped (and read when its stamp does not
// vouch for old), and its sum, when known, kept for the next load when
// the stamp vouched for old (a file read now keeps none).
func (r Runner) fileRec(seen *Seen, f string, old *fileRec, known bool, at time.Time) (fileRec, error) {
	sum, summed := seen.sum(f)
	if summed && known && old.Sum == sum {
		return *old, nil
	}
	old.decodeStamp()
	st := seen.stamp(r.Root, f)
	rec := fileRec{Path: f, Stamp: st, Sum: sum}
	read := false
	if known && old.trusted(st, at) {
		rec.Hash = old.Hash
	} else {
		h, err := seen.hash(hashing.JoinSlash(r.Root, f))
		if err != nil {
			return fileRec{}, err
		}
		rec.Hash, read = h, true
	}
	switch {
	case !summed && known && rec.Hash == old.Hash:
		rec.Sum = old.Sum // the content recorded, so its sum too
	case summed && (read || !st.settled(time.Now())):
		// Read now, the file changed since its record: its sum stands
		// for it as of the run's token (a journal's proof) and its stamp
		// was taken for the load, both before the read, and an edit in
		// between would pair the sum of before with the hash of after.
		// The pair is kept by the next load, whose stamp then vouches
		// for the record (trusted) from before its token.
		rec.Sum = ""
	}
	return rec, nil
}

// recordFinder answers the record of a file among recs. The files are
// asked for in listing order, which is the order recs were stored in: each
// is found by comparing the next record, and a map is made only when one
// is not.
func recordFinder(recs []fileRec) func(string) (fileRec, bool) {
	next := 0
	var byPath map[string]fileRec
	return func(f string) (fileRec, bool) {
		if next < len(recs) && recs[next].Path == f {
			next++
			return recs[next-1], true
		}
		if byPath == nil {
			byPath = make(map[string]fileRec, len(recs))
			for _, r := range recs {
				byPath[r.Path] = r
			}
		}
		r, ok := byPath[f]
		return r, ok
	}
}
