package workspace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/vzn/vx/internal/anypath"
)

// configPaths checks the path globs of a config's task definitions
// (inputs, outputs) and answers tasks with them normalised (the map is a
// new one: the decoded config may be shared by a cache). file names the
// config in a refusal.
func configPaths(file string, tasks map[string]TaskConfig) (map[string]TaskConfig, error) {
	if len(tasks) == 0 {
		return tasks, nil
	}
	out := make(map[string]TaskConfig, len(tasks))
	for name, tc := range tasks {
		for _, f := range []struct {
			field, hint string
			list        **[]string
		}{{"inputs", fileHint, &tc.Inputs}, {"outputs", outputsHint, &tc.Outputs}} {
			if *f.list == nil {
				continue
			}
			list, err := pathGlobs(file, "tasks."+name+"."+f.field, **f.list, f.hint)
			if err != nil {
				return nil, err
			}
			if f.field == "outputs" {
				if err := relativeOutputs(file, "tasks."+name+".outputs", list); err != nil {
					return nil, err
				}
			}
			*f.list = &list
		}
		out[name] = tc
	}
	return out, nil
}

// The hints of a refused path: what a task's inputs and outputs, the
// projects globs and globalInputs are relative to.
const (
	fileHint     = `name files relative to the project, or to the workspace root with a leading "/" (as "/tsconfig.json")`
	projectsHint = `name project directories relative to the workspace root (as "packages/*")`
	rootHint     = `name files relative to the workspace root (as "tsconfig.base.json")`
	outputsHint  = `outputs are relative to the task's directory (as "dist/**")`
)

// pathGlobs answers a config field's globs with backslashes made slashes,
// refusing a drive letter or UNC path (field[i] and the value named).
//
// Backslashes are separators on every OS, not glob escapes: a config
// written on Windows ("src\**") means on Linux and macOS what it means
// there, and gives the same key (keys hold slash paths; "[*]" matches a
// literal star). A path with a Windows volume cannot name a file of the
// workspace on any OS, so it is refused rather than matching nothing.
func pathGlobs(file, field string, globs []string, hint string) ([]string, error) {
	if len(globs) == 0 {
		return globs, nil
	}
	out := make([]string, len(globs))
	for i, g := range globs {
		if strings.HasPrefix(g, "npm:") {
			out[i] = g
			continue
		}
		rest := strings.TrimLeft(g, "!^") // "!", "^", "^!" and "!^" before the path
		if anypath.Windows(rest) {
			return nil, fieldError(file, field+"["+strconv.Itoa(i)+"]", fmt.Errorf("%q is a Windows drive or network path: %s", g, hint))
		}
		out[i] = strings.ReplaceAll(g, `\`, "/")
	}
	return out, nil
}

// relativeOutputs refuses an outputs glob rooted at "/" (or "\\", made a
// slash): outputs are collected under the task's directory, so a rooted
// one (an absolute Unix path) would match nothing, silently.
func relativeOutputs(file, field string, globs []string) error {
	for i, g := range globs {
		if strings.HasPrefix(strings.TrimPrefix(g, "!"), "/") {
			return fieldError(file, field+"["+strconv.Itoa(i)+"]", fmt.Errorf("%q is an absolute path: %s", g, outputsHint))
		}
	}
	return nil
}
