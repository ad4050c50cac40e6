package plugins

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vzn/vx/internal/names"
	"github.com/vzn/vx/opkit"
	"github.com/vzn/vx/protocol/plugin"
)

// decodeAnswer decodes one JSON object, and nothing after it, into v,
// refusing unknown fields and a protocol other than plugin.Version. The
// reason is plain text for an *Error; the start of an answer it quotes is
// masked before it is cut (a cut secret would escape the masking).
func (r Runner) decodeAnswer(b []byte, v any) error {
	if !utf8.Valid(b) {
		return fmt.Errorf("its answer is not UTF-8 text")
	}
	var head struct {
		Protocol *int `json:"protocol"`
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		// Not an object at all: what it is says more than a decoder's
		// complaint about the type it would have filled.
		return fmt.Errorf("its answer is not one JSON object; it starts %q", preview(r.Masker.JSON(b)))
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("its answer is not one JSON object (%v); it starts %q", err, preview(r.Masker.JSON(b)))
	}
	if head.Protocol == nil {
		return fmt.Errorf("its answer has no \"protocol\" (this vx speaks protocol %d)", plugin.Version)
	}
	if *head.Protocol != plugin.Version {
		return fmt.Errorf("it answers protocol %d; this vx speaks protocol %d", *head.Protocol, plugin.Version)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if _, ok := v.(*plugin.TasksAnswer); ok {
			if where, terr := r.badTask(b); terr != nil {
				return fmt.Errorf("its answer does not fit the protocol: %s: %v", where, terr)
			}
		}
		return fmt.Errorf("its answer does not fit the protocol: %v", err)
	}
	if dec.More() {
		return fmt.Errorf("its answer holds more than one JSON value")
	}
	return nil
}

// badTask finds the first task of the tasks answer b that does not
// decode strictly, naming it by its place and, when they read as
// strings, its project and name (masked), with its error; nil when each
// decodes (the answer's fault is outside its tasks). It runs only for an
// answer already refused.
func (r Runner) badTask(b []byte) (string, error) {
	var loose struct {
		Tasks []json.RawMessage `json:"tasks"`
	}
	if json.Unmarshal(b, &loose) != nil {
		return "", nil
	}
	for i, raw := range loose.Tasks {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		var t plugin.Task
		err := dec.Decode(&t)
		if err == nil {
			continue
		}
		where := fmt.Sprintf("tasks[%d]", i)
		var id struct{ Project, Name string }
		if json.Unmarshal(raw, &id) == nil && id.Project != "" && id.Name != "" {
			where += fmt.Sprintf(" (%s)", preview([]byte(r.mask(id.Project+"#"+id.Name))))
		}
		return where, err
	}
	return "", nil
}

func preview(b []byte) string {
	if len(b) > 40 {
		b = b[:40]
	}
	return strings.ToValidUTF8(string(b), "?")
}

// isPluginName says whether s is a plugin's name: 1 to 100 of letters,
// digits, @ / . _ -, the first none of / . _ -.
func isPluginName(s string) bool {
	return names.Shaped(s, 100, func(c byte) bool { return names.Alnum(c) || c == '@' },
		func(c byte) bool { return names.Alnum(c) || strings.IndexByte("@/._-", c) >= 0 })
}

// isCommandName says whether s is a verb's name: 1 to 40 of lower case
// letters, digits and -, the first a letter.
func isCommandName(s string) bool {
	lower := func(c byte) bool { return c >= 'a' && c <= 'z' }
	return names.Shaped(s, 40, lower, func(c byte) bool { return lower(c) || c >= '0' && c <= '9' || c == '-' })
}

// checkDescribe refuses a describe answer outside the protocol's rules;
// a value it quotes is masked by mask before it is cut (a cut secret
// would escape the masking).
func checkDescribe(a *plugin.Describe, mask func(string) string) error {
	switch {
	case !isPluginName(a.Name):
		return fmt.Errorf("its name %q is not a plugin name (letters, digits, @ / . _ -)", preview([]byte(mask(a.Name))))
	case len(a.Version) > 64:
		return fmt.Errorf("its version is longer than 64 characters")
	case len(a.Globs) > plugin.MaxGlobs:
		return fmt.Errorf("it declares %d globs; at most %d", len(a.Globs), plugin.MaxGlobs)
	case len(a.Commands) > plugin.MaxCommands:
		return fmt.Errorf("it declares %d commands; at most %d", len(a.Commands), plugin.MaxCommands)
	}
	for _, s := range a.Stages {
		if s != plugin.OffersTasks && s != plugin.OffersCommands {
			return fmt.Errorf("stage %q is not one this vx knows (%q, %q)", s, plugin.OffersTasks, plugin.OffersCommands)
		}
	}
	for _, g := range a.Globs {
		if err := checkGlob(g); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	for _, c := range a.Commands {
		if !isCommandName(c.Name) {
			return fmt.Errorf("command %q is not a verb name (lower case letters, digits and -)", preview([]byte(mask(c.Name))))
		}
		if seen[c.Name] {
			return fmt.Errorf("command %q is declared twice", c.Name)
		}
		seen[c.Name] = true
		if len(c.Summary) > 200 {
			return fmt.Errorf("command %q: its summary is longer than 200 characters", c.Name)
		}
		if len(c.InputSchema) > 0 && !bytes.HasPrefix(bytes.TrimSpace(c.InputSchema), []byte("{")) {
			return fmt.Errorf("command %q: its inputSchema is not a JSON object", c.Name)
		}
		if c.ReadOnly && len(c.InputSchema) > 0 {
			// It is to be an MCP tool: a schema no tool can check
			// arguments against would leave the tool out unsaid.
			if _, err := opkit.ResolveSchema(c.InputSchema); err != nil {
				return fmt.Errorf("command %q: its inputSchema cannot check a tool's arguments: %v", c.Name, err)
			}
		}
	}
	return nil
}

// dotSegment reports whether the glob g has a "." or ".." segment: the
// files it is matched against are workspace-relative and clean, so such a
// glob matches nothing (or, with "..", would name files outside).
func dotSegment(g string) bool {
	for seg := range strings.SplitSeq(g, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// offers reports whether the describe answer lists stage.
func offers(a *plugin.Describe, stage string) bool {
	for _, s := range a.Stages {
		if s == stage {
			return true
		}
	}
	return false
}

// checkTasks refuses a tasks answer naming a project or file vx did not
// send, a task name that is not one, a bad timeout, or a path that leaves
// the workspace. It answers the file the bad task came from.
func checkTasks(tasks []plugin.Task, files map[string]bool, roots map[string]string) (string, error) {
	if len(tasks) > plugin.MaxTasks {
		return "", fmt.Errorf("it answers %d tasks; at most %d", len(tasks), plugin.MaxTasks)
	}
	type taskID struct{ project, name string }
	seen := make(map[taskID]bool, len(tasks))
	for _, t := range tasks {
		id := t.Project + "#" + t.Name
		root, ok := roots[t.Project]
		switch {
		case !ok:
			return t.File, fmt.Errorf("task %q names project %q, which vx did not send", t.Name, t.Project)
		case t.Name == "" || strings.ContainsAny(t.Name, "# \t\n") || len(t.Name) > 100:
			return t.File, fmt.Errorf("task %q of project %s is not a task name", t.Name, t.Project)
		case !files[t.File]:
			return t.File, fmt.Errorf("task %s names file %q, which is not one of the files vx sent", id, t.File)
		case seen[taskID{t.Project, t.Name}]:
			return t.File, fmt.Errorf("task %s is answered twice", id)
		}
		seen[taskID{t.Project, t.Name}] = true
		if t.Timeout != nil {
			if d, err := time.ParseDuration(*t.Timeout); err != nil || d <= 0 {
				return t.File, fmt.Errorf("task %s: timeout is not a duration (use a value such as \"90s\")", id)
			}
		}
		for _, f := range [2]struct {
			name string
			list *[]string
		}{{"inputs", t.Inputs}, {"outputs", t.Outputs}} {
			if f.list == nil {
				continue
			}
			for _, p := range *f.list {
				if escapes(root, p) {
					return t.File, fmt.Errorf("task %s: %s %q is outside the workspace", id, f.name, p)
				}
				// As a configured task's: outputs are collected under
				// the task's directory, so a rooted one matches nothing.
				if f.name == "outputs" && strings.HasPrefix(strings.TrimPrefix(p, "!"), "/") {
					return t.File, fmt.Errorf("task %s: outputs %q is an absolute path (outputs are relative to the task's directory, as \"dist/**\")", id, p)
				}
				if f.name == "outputs" && escapes("", p) {
					return t.File, fmt.Errorf("task %s: outputs %q leaves the task's directory (outputs are relative to it, as \"dist/**\")", id, p)
				}
			}
		}
	}
	return "", nil
}

// escapes reports whether the task input or output p of the project at
// root leads outside the workspace: "!" negates, "^" is relative to a
// dependency's directory (taken as at root's depth), "/" to the
// workspace root, and "npm:NAME" names a package, not a path.
func escapes(root, p string) bool {
	p = strings.TrimPrefix(p, "!")
	if strings.HasPrefix(p, "npm:") {
		return false
	}
	if strings.HasPrefix(p, "^") {
		p = strings.TrimPrefix(p[1:], "!")
	}
	if strings.HasPrefix(p, "/") {
		root, p = "", strings.TrimPrefix(strings.TrimPrefix(p, "/"), "!")
		if strings.HasPrefix(p, "/") {
			return true
		}
	}
	if strings.Contains(p, "\\") || (len(p) > 1 && p[1] == ':') {
		return true
	}
	if !strings.Contains(p, "..") {
		return false // only a ".." leads out of root, a project's directory
	}
	// A brace pattern holding ".." ("{../../x,src}") is refused whole
	// rather than expanded: its alternatives can be listed one glob each.
	if strings.Contains(p, "{") && slices.Contains(strings.FieldsFunc(p, func(r rune) bool { return strings.ContainsRune("/{,}", r) }), "..") {
		return true
	}
	c := path.Clean(path.Join(root, p))
	return c == ".." || strings.HasPrefix(c, "../")
}
