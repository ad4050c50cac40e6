package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/vzn/vx/daemon/jsonc"
	"github.com/vzn/vx/protocol/wire"
	"os"
	"path/filepath"
)

// declaredSecret is a variable some configuration file declares secret,
// with its inline value when it has one.
type declaredSecret struct {
	Name  string
	Value *string
}

// SecretValues lists the value of every variable declared secret in the
// workspace at root: those of the loaded model m, or, when the model
// failed to load (m nil), those its configuration files declare as far as
// they can be read, so that a configuration which fails to load still has
// its secrets masked in the error and everywhere else. Variables without
// an inline value are read from env.
func SecretValues(root string, m *Model, env map[string]string) []string {
	var out []string
	add := func(d declaredSecret) {
		if d.Value != nil {
			out = append(out, *d.Value)
		} else if v := env[d.Name]; v != "" {
			out = append(out, v)
		}
	}
	if m != nil {
		each := func(tasks map[string]TaskConfig) {
			for _, tc := range tasks {
				if tc.Exec == nil {
					continue
				}
				for name, v := range tc.Exec.Env {
					if v.Secret {
						add(declaredSecret{Name: name, Value: v.Value})
					}
				}
			}
		}
		each(m.Config.Tasks)
		for _, p := range m.Projects {
			each(p.Overrides)
		}
	}
	if m == nil {
		for _, d := range scanSecrets(root) {
			add(d)
		}
	}
	for _, name := range wire.CredentialEnv {
		add(declaredSecret{Name: name})
	}
	return out
}

// scanSecrets reads vx.workspace.json and every vx.project.json of the
// workspace leniently and lists the variables they declare secret. Unlike
// Load it stops at nothing: a mistyped field is read as whatever it holds,
// and a file broken part-way is read up to the break. A variable counts as
// secret unless its "secret" is literally false, so a mistyped
// "secret": "yes" still masks.
func scanSecrets(root string) []declaredSecret {
	cfg := filepath.Join(root, ConfigFile)
	src, err := os.ReadFile(cfg)
	if err != nil {
		return nil
	}
	doc := lenientDecode(jsonc.Blank(src))
	out := secretsIn(doc)
	globs := stringList(field(doc, "projects"))
	if len(globs) == 0 {
		if rp, err := readPackageJSON(filepath.Join(root, "package.json")); err == nil {
			globs = rp.workspaceGlobs()
		}
	}
	if len(globs) == 0 {
		if b, err := os.ReadFile(filepath.Join(root, "pnpm-workspace.yaml")); err == nil {
			globs = parsePnpmPackages(b)
		}
	}
	dirs, _, _ := expandProjectGlobs(root, globs)
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), ProjectFile))
		if err == nil {
			out = append(out, secretsIn(lenientDecode(jsonc.Blank(b)))...)
		}
	}
	return out
}

// secretsIn walks tasks.*.exec.env.* of a leniently decoded config.
func secretsIn(doc any) []declaredSecret {
	var out []declaredSecret
	tasks, _ := field(doc, "tasks").(map[string]any)
	for _, tc := range tasks {
		vars, _ := field(field(tc, "exec"), "env").(map[string]any)
		for name, v := range vars {
			obj, ok := v.(map[string]any)
			if !ok {
				continue
			}
			flag, present := obj["secret"]
			if !present || flag == false {
				continue
			}
			d := declaredSecret{Name: name}
			if s, ok := obj["value"].(string); ok {
				d.Value = &s
			}
			out = append(out, d)
		}
	}
	return out
}

func field(v any, name string) any {
	if m, ok := v.(map[string]any); ok {
		return m[name]
	}
	return nil
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// lenientDecode decodes as much of a JSON document as is well formed:
// what precedes a syntax error is kept, containers left open included.
func lenientDecode(std []byte) any {
	dec := json.NewDecoder(bytes.NewReader(std))
	v, _ := lenientValue(dec, 0)
	return v
}

// maxLenientDepth bounds the recursion on a hostile document.
const maxLenientDepth = 64

func lenientValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= maxLenientDepth {
		return nil, errStop
	}
	switch d {
	case '{':
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return obj, err
			}
			key, _ := kt.(string)
			v, err := lenientValue(dec, depth+1)
			if v != nil {
				obj[key] = v
			}
			if err != nil {
				return obj, err
			}
		}
		_, err := dec.Token()
		return obj, err
	case '[':
		var list []any
		for dec.More() {
			v, err := lenientValue(dec, depth+1)
			if v != nil {
				list = append(list, v)
			}
			if err != nil {
				return list, err
			}
		}
		_, err := dec.Token()
		return list, err
	}
	return nil, errStop // a stray closing delimiter
}

// errStop ends a lenient read where the document cannot be followed.
var errStop = errors.New("the document is not read further")

// fieldError reports a value at path of file that decoded but does not
// mean anything valid, at the value's line and column. It never quotes
// the value.
func fieldError(file, path string, err error) error {
	fe := &FileError{File: file, Msg: path + ": " + err.Error()}
	if src, rerr := os.ReadFile(file); rerr == nil {
		if doc, perr := jsonc.Parse(src); perr == nil {
			for _, p := range doc.Root().Paths() {
				if p.Path == path {
					fe.Line, fe.Col = jsonc.Position(src, p.Off)
					break
				}
			}
		}
	}
	return fe
}
