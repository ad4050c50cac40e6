package docsearch

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/vzn/vx/docs"
)

// mdLink is a markdown link to a markdown file, with its anchor if any:
// [text](file.md#anchor), [text](docs/file.md), ...
var mdLink = regexp.MustCompile(`\]\(([A-Za-z0-9_./-]+\.md)(#[^)\s]*)?\)`)

// anchors lists the GitHub anchor of every heading (any level) of a
// markdown text, a repeated one numbered as GitHub does (-1, -2, ...).
func anchors(src string) map[string]bool {
	out := map[string]bool{}
	used := map[string]int{}
	fence := false
	for _, line := range strings.Split(src, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level > 6 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		a := slug(heading(line[level+1:]))
		if n := used[a]; n > 0 {
			used[a] = n + 1
			a = fmt.Sprintf("%s-%d", a, n)
		} else {
			used[a] = 1
		}
		out[a] = true
	}
	return out
}

// Every link from one doc into another (and from the README into docs/)
// names a file that exists and, with an anchor, a heading of that file:
// a heading renamed or a section moved breaks no reader's link.
func TestLinksBetweenDocsResolve(t *testing.T) {
	files := map[string]string{}
	names, err := fs.Glob(docs.FS, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := fs.ReadFile(docs.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		files["docs/"+n] = string(b)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files["README.md"] = string(readme)
	links := 0
	for from, src := range files {
		for _, m := range mdLink.FindAllStringSubmatch(src, -1) {
			target := path.Clean(path.Join(path.Dir(from), m[1]))
			if strings.HasPrefix(m[1], "http") || strings.HasPrefix(target, "..") {
				continue
			}
			if _, inDocs := files[target]; !inDocs && !strings.HasPrefix(target, "docs/") {
				continue // a file outside the reference (LICENSE.md, ...)
			}
			links++
			body, ok := files[target]
			if !ok {
				t.Errorf("%s links to %s, which does not exist", from, m[1])
				continue
			}
			if a := strings.TrimPrefix(m[2], "#"); a != "" && !anchors(body)[a] {
				t.Errorf("%s links to %s%s: %s has no such heading", from, m[1], m[2], target)
			}
		}
	}
	if links == 0 {
		t.Fatal("no link between docs found: the pattern is wrong")
	}
}
