package workspace

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/vzn/vx/internal/braces"
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

// climbedInputs answers a project task's inputs with each that climbs
// out of the project at dir through ".." but stays in the workspace
// ("../../tsconfig.base.json", "!../x/**") written as the workspace-rooted
// input naming the same files ("/tsconfig.base.json"), and one that climbs
// back in ("src/../lib/**") as relative to dir, as turbo reads such an
// input. A project task's plain globs are matched against its own files,
// so a "../" one would match nothing and leave the key blind to the file.
// A glob whose brace alternatives climb ("{../../x,src/**}") is answered
// as its alternatives, each so. One that leaves the workspace is kept as
// it is, matching nothing (a plugin's answer that holds one has been
// refused); "^", "/" and "npm:" inputs are kept too. inputs itself is
// answered when nothing changes.
func climbedInputs(dir string, inputs []string) []string {
	var out []string
	for i, g := range inputs {
		globs, changed := climbedInput(dir, g)
		if !changed {
			if out != nil {
				out = append(out, g)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(inputs)+len(globs)), inputs[:i]...)
		}
		out = append(out, globs...)
	}
	if out == nil {
		return inputs
	}
	return out
}

// climbedInput is the input g of the project at dir as climbedInputs
// answers it, and whether that differs from g.
func climbedInput(dir, g string) ([]string, bool) {
	neg, p := "", g
	if rest, ok := strings.CutPrefix(g, "!"); ok {
		neg, p = "!", rest
	}
	if strings.HasPrefix(p, "^") || strings.HasPrefix(p, "npm:") || strings.HasPrefix(p, "/") {
		return nil, false
	}
	if braceHoldsDotDot(p) {
		alts, ok := braces.Expand(p, maxBraceGlobs)
		if !ok || !slices.ContainsFunc(alts, dotDotSegment) {
			return nil, false // kept: cutting through its braces would match other files
		}
		out := make([]string, 0, len(alts))
		for _, a := range alts {
			if c, ok := climbed(dir, a); ok {
				a = c
			}
			out = append(out, neg+a)
		}
		return out, true
	}
	if c, ok := climbed(dir, p); ok {
		return []string{neg + c}, true
	}
	return nil, false
}

// climbed is the glob p of the project at dir, which has a ".." segment
// and stays in the workspace, as relative to dir when it ends there and
// as a "/" glob when it does not; false for another glob.
func climbed(dir, p string) (string, bool) {
	if !dotDotSegment(p) {
		return "", false
	}
	c := path.Clean(path.Join(dir, p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	if rel, ok := strings.CutPrefix(c, dir+"/"); ok && dir != "." && dir != "" {
		return rel, true
	}
	return "/" + c, true
}

// braceHoldsDotDot reports whether a brace of the glob p holds "..".
func braceHoldsDotDot(p string) bool {
	depth := 0
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '{':
			depth++
		case p[i] == '}' && depth > 0:
			depth--
		case depth > 0 && strings.HasPrefix(p[i:], ".."):
			return true
		}
	}
	return false
}

// maxBraceGlobs bounds the globs one climbing input is written as.
const maxBraceGlobs = 64

// dotDotSegment reports whether the slash path p has a ".." segment.
func dotDotSegment(p string) bool {
	return p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..")
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
