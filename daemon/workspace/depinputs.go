package workspace

import (
	"sort"
	"strings"
)

// DepInputs are the "^" globs of a task's inputs without their "^": they
// pick files of the projects the task's project depends on ("^src/**",
// and "^!**/*.test.ts" to leave some out). Nil when there are none.
func DepInputs(inputs []string) []string {
	var out []string
	for _, g := range inputs {
		if rest, ok := strings.CutPrefix(g, "^"); ok {
			out = append(out, strings.TrimPrefix(rest, "./"))
		}
	}
	return out
}

// RootInputs are the "/" globs of a project task's inputs ("/tsconfig.base.json",
// and "!/…" to leave some out) without their "/": they pick files of the
// whole workspace, relative to its root. Nil when there are none.
func RootInputs(inputs []string) []string {
	var out []string
	for _, g := range inputs {
		neg, rest := "", g
		if r, ok := strings.CutPrefix(g, "!"); ok {
			neg, rest = "!", r
		}
		if r, ok := strings.CutPrefix(rest, "/"); ok {
			out = append(out, neg+r)
		}
	}
	return out
}

// NpmInputs are the package names of a task's "npm:NAME" inputs: the
// version of NAME and of every package it depends on, as the lockfile pins
// them, joins the key. Nil when there are none.
func NpmInputs(inputs []string) []string {
	var out []string
	for _, g := range inputs {
		if name, ok := strings.CutPrefix(g, "npm:"); ok && name != "" {
			out = append(out, name)
		}
	}
	return out
}

// MatchInputs reports whether f matches one of globs and none of its "!"
// globs.
func MatchInputs(globs []string, f string) bool {
	in := false
	for _, g := range globs {
		if neg, ok := strings.CutPrefix(g, "!"); ok {
			if MatchGlob(strings.TrimPrefix(neg, "./"), f) {
				return false
			}
			continue
		}
		if MatchGlob(g, f) {
			in = true
		}
	}
	return in
}

// DepClosure lists the projects the named project depends on, directly or
// through others, sorted by name; nil for an unknown project.
func (m *Model) DepClosure(name string) []*Project {
	p := m.byName[name]
	if p == nil {
		return nil
	}
	seen := map[string]bool{name: true}
	var out []*Project
	stack := append([]string{}, p.Deps...)
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[d] || m.byName[d] == nil {
			continue
		}
		seen[d] = true
		dp := m.byName[d]
		out = append(out, dp)
		stack = append(stack, dp.Deps...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
