package docsearch

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/vzn/vx/docs"
	"github.com/vzn/vx/opkit"
)

var update = flag.Bool("update", false, "rewrite testdata/urls.golden from the current reference")

// searchIn builds an index over files and searches it, as Search does over
// the embedded reference.
func searchIn(t *testing.T, files map[string]string, query string) []Section {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	idx, err := build(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var out []Section
	for _, h := range idx.search(queryWords(query)) {
		s := idx.secs[h.sec].Section
		s.Score = h.score
		out = append(out, s)
	}
	return out
}

func urls(secs []Section) []string {
	out := make([]string, len(secs))
	for i, s := range secs {
		out[i] = s.URL
	}
	return out
}

func TestRankingSynthetic(t *testing.T) {
	files := map[string]string{
		"a.md": "# A\n\nintro\n\n" +
			"## Body only\n\nalpha beta. alpha beta again, alpha and beta, beta alpha.\n\n" +
			"## Alpha beta\n\nthis section has the words in its title and once here: alpha.\n\n" +
			"## Scattered\n\nbeta comes first here and alpha later, never together as one phrase.\n\n" +
			"## Together\n\nthe phrase alpha beta appears here.\n" + strings.Repeat("filler text that makes this section long. ", 200) + "\n\n" +
			"## Together short\n\nthe phrase alpha beta appears here.\n",
	}
	tests := []struct {
		name, query string
		first       string
		before      [2]string // before[0] ranks above before[1]
	}{
		{"title words rank first", "alpha beta", "vx://docs/a#alpha-beta", [2]string{}},
		{"one title word ranks first", "beta", "vx://docs/a#alpha-beta", [2]string{}},
		{"exact phrase beats scattered words", "alpha beta", "", [2]string{"vx://docs/a#together-short", "vx://docs/a#scattered"}},
		{"shorter section preferred", "phrase alpha", "", [2]string{"vx://docs/a#together-short", "vx://docs/a#together"}},
		{"case-insensitive", "ALPHA Beta", "vx://docs/a#alpha-beta", [2]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := urls(searchIn(t, files, tc.query))
			if len(got) == 0 {
				t.Fatalf("%q found nothing", tc.query)
			}
			if tc.first != "" && got[0] != tc.first {
				t.Errorf("%q ranked %v; want %s first", tc.query, got, tc.first)
			}
			if tc.before[0] != "" {
				i, j := indexOf(got, tc.before[0]), indexOf(got, tc.before[1])
				if i < 0 || j < 0 || i > j {
					t.Errorf("%q ranked %v; want %s before %s", tc.query, got, tc.before[0], tc.before[1])
				}
			}
		})
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func TestEveryWordSynthetic(t *testing.T) {
	files := map[string]string{
		"b.md": "## Red green\n\nred and green.\n\n## Red only\n\nred, red, red.\n\n## Green only\n\ngreen.\n\n" +
			"## Names\n\nset `vx.workspace.json`, run `web#build`, pass --filter and src/** here.\n\n" +
			"## Plural\n\nmany caches.\n",
	}
	tests := []struct {
		query string
		want  []string
	}{
		{"red green", []string{"vx://docs/b#red-green"}},
		{"green red", []string{"vx://docs/b#red-green"}},
		{"red blue", nil},
		{"vx.workspace.json", []string{"vx://docs/b#names"}},
		{"workspace", []string{"vx://docs/b#names"}},
		{"web#build", []string{"vx://docs/b#names"}},
		{"--filter", []string{"vx://docs/b#names"}},
		{"src", []string{"vx://docs/b#names"}},
		{"cache", []string{"vx://docs/b#plural"}},
		{"names.json", []string{"vx://docs/b#names"}}, // a compound never spelled whole stands for its parts
		{"red.blue", nil},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			got := urls(searchIn(t, files, tc.query))
			sort.Strings(got)
			want := append([]string{}, tc.want...)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%q found %v; want %v", tc.query, got, want)
			}
		})
	}
}

func TestSplit(t *testing.T) {
	src := "# Title here\n\nintro\n\n## One\n\ntext\n\n```md\n## not a heading\n```\n\n## One\n\nagain\n\n## `vx run` and --flags!\n\nx\n"
	secs := split("f.md", src)
	var got []string
	for _, s := range secs {
		got = append(got, s.Title+" → "+s.URL)
	}
	want := []string{
		"Title here → vx://docs/f#title-here",
		"One → vx://docs/f#one",
		"One → vx://docs/f#one-1",
		"vx run and --flags! → vx://docs/f#vx-run-and---flags",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(secs[1].Text, "## not a heading") {
		t.Errorf("a heading inside a code fence split the section:\n%s", secs[1].Text)
	}
	for _, s := range secs[1:] {
		if !strings.HasPrefix(s.Text, "## ") {
			t.Errorf("section %s does not start with its heading: %q", s.URL, s.Text)
		}
	}
}

func TestEmptyQueryRefused(t *testing.T) {
	for _, q := range []string{"", "   ", "\t\n", "!!! ??", "-- ."} {
		_, err := Search(q, 0)
		var ae *opkit.Refusal
		if !errors.As(err, &ae) {
			t.Fatalf("Search(%q) = %v; want an *opkit.Refusal", q, err)
		}
		if ae.Arg != "query" || !strings.Contains(err.Error(), "query") {
			t.Errorf("Search(%q) refused with %q (arg %q); want it to name the argument query", q, err, ae.Arg)
		}
		if !strings.Contains(ae.Msg, "word") {
			t.Errorf("Search(%q) refusal %q does not say what is accepted", q, ae.Msg)
		}
	}
}

func TestLimit(t *testing.T) {
	tests := []struct {
		limit, want int
		note        string // substring of the note; "" = no clamping note
	}{
		{0, defaultLimit, ""},
		{1, 1, ""},
		{7, 7, ""},
		{MaxLimit, MaxLimit, ""},
		{-3, 1, "limit -3 is below the minimum; 1 applied (limit accepts 1..50)"},
		{1000, MaxLimit, "limit 1000 is above the maximum; 50 applied (limit accepts 1..50)"},
	}
	for _, tc := range tests {
		r, err := Search("task", tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if r.Limit != tc.want {
			t.Errorf("limit %d applied %d; want %d", tc.limit, r.Limit, tc.want)
		}
		if len(r.Sections) > r.Limit || (r.Total >= r.Limit && len(r.Sections) != r.Limit) {
			t.Errorf("limit %d: %d sections of %d", r.Limit, len(r.Sections), r.Total)
		}
		hasLimitNote := strings.Contains(r.Note, "limit accepts")
		if tc.note == "" && hasLimitNote || tc.note != "" && !strings.Contains(r.Note, tc.note) {
			t.Errorf("limit %d: note %q; want %q", tc.limit, r.Note, tc.note)
		}
	}
}

func TestNoMatchNote(t *testing.T) {
	r, err := Search("zzyzx-not-a-word", 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total != 0 || len(r.Sections) != 0 || r.Sections == nil || r.Note == "" {
		t.Errorf("no match answered total %d, sections %v, note %q; want 0, [], a note", r.Total, r.Sections, r.Note)
	}
}

// sourceNames reads the first group of re in every non-test Go file matching
// the globs, so that new tools, arguments, resources, prompts and config keys
// are covered without touching this test.
func sourceNames(t *testing.T, re *regexp.Regexp, globs ...string) []string {
	t.Helper()
	var files []string
	for _, g := range globs {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("no source files match %s: %v", g, err)
		}
		files = append(files, m...)
	}
	set := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			set[m[1]] = true
		}
	}
	var out []string
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// catalog is where the daemon's tools are declared: the catalog itself and
// the adoption tools the CLI adds to it (cli/extra.go).
// catalog is where tools are declared: the operations (their arguments
// are checked against mcp.md by daemon/tools' TestEveryArgumentDocumented,
// from the generated schemas) and the resources and prompts.
var catalog = []string{"../ops/operations.go", "../tools/*.go"}

func TestEveryToolDocumented(t *testing.T) {
	// A tool is declared as {Name: "camelCase", Title: ...}; arguments have no
	// Title, and resource and prompt names contain dashes.
	tools := sourceNames(t, regexp.MustCompile(`\{Name:\s*"([a-z][A-Za-z0-9]*)",\s*Title:`), catalog...)
	if len(tools) < 10 {
		t.Fatalf("found only %d tool names in daemon/tools: %v", len(tools), tools)
	}
	for _, name := range tools {
		t.Run(name, func(t *testing.T) {
			r, err := Search(name, MaxLimit)
			if err != nil {
				t.Fatal(err)
			}
			if r.Total == 0 {
				t.Fatalf("tool %s is not documented: no section mentions it", name)
			}
			if first := r.Sections[0]; first.Title != name || first.File != "mcp.md" {
				t.Errorf("searching %q ranks %q (%s) first; want the tool's own section in mcp.md", name, first.Title, first.URL)
			}
		})
	}
	// Every name in the catalog — tool arguments, resources, prompts and
	// their arguments too — must be findable.
	for _, name := range sourceNames(t, regexp.MustCompile(`Name:\s*"([^"]+)"`), catalog...) {
		r, err := Search(name, MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		if !inFile(r, "mcp.md") {
			t.Errorf("%q, named in the MCP catalog, is not documented in mcp.md", name)
		}
	}
}

func inFile(r *Result, file string) bool {
	for _, s := range r.Sections {
		if s.File == file {
			return true
		}
	}
	return false
}

func TestEveryConfigKeyDocumented(t *testing.T) {
	keys := sourceNames(t, regexp.MustCompile(`json:"([^",]+)`), "../workspace/config.go")
	if len(keys) < 15 {
		t.Fatalf("found only %d config keys in daemon/workspace/config.go: %v", len(keys), keys)
	}
	for _, key := range keys {
		if key == "-" {
			continue
		}
		r, err := Search(key, MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		if !inFile(r, "config.md") {
			t.Errorf("config key %q is not documented in config.md", key)
		}
	}
}

// TestKnownAnswers pins the sections a newcomer's questions should lead to.
func TestKnownAnswers(t *testing.T) {
	tests := []struct{ query, first string }{
		{"mcp.run", "vx://docs/config#mcprun"},
		{"flaky", "vx://docs/history#flaky-tasks"},
		{"stat cache", "vx://docs/cache#stat-cache"},
		{"idle timeout", "vx://docs/vxd#idle-timeout"},
		{"exit codes", "vx://docs/cli#exit-codes"},
		{"discovery file", "vx://docs/vxd#discovery-file"},
		{"secrets", "vx://docs/config#task-execenv-and-secrets"},
		{"cors", "vx://docs/vxd#cors-for-browser-based-agents"},
		{"//#name", "vx://docs/config#root-tasks-name"},
		{"dependsOn", "vx://docs/config#task-dependson"},
		{"prune", "vx://docs/cli#vx-cache-prune"},
		{"pruning", "vx://docs/cache#pruning-the-cache"},
		{"mcpServers", "vx://docs/mcp#client-setup"},
		{"--affected", "vx://docs/cli#--affected"},
		{"cache key components", "vx://docs/cache#cache-key-components"},
	}
	for _, tc := range tests {
		r, err := Search(tc.query, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Sections) == 0 || r.Sections[0].URL != tc.first {
			t.Errorf("%q ranks %v first; want %s", tc.query, urls(r.Sections), tc.first)
		}
	}
}

// TestEveryResultHoldsEveryWord checks the answer's contract on the real
// reference: each section returned holds each word of the query.
func TestEveryResultHoldsEveryWord(t *testing.T) {
	idx, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"cache key", "runTasks progress", "secret masked", "outputs glob warning", "token"} {
		r, err := Search(q, MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		if r.Total == 0 {
			t.Errorf("%q found nothing", q)
		}
		for _, s := range r.Sections {
			have := map[string]bool{}
			for _, tok := range tokens(s.Title + "\n" + s.Text) {
				for _, term := range terms(tok) {
					have[term] = true
				}
			}
			for _, w := range queryWords(q) {
				if !have[w] && !have[w+"s"] && !have[strings.TrimSuffix(w, "s")] {
					t.Errorf("%q returned %s, which lacks %q", q, s.URL, w)
				}
			}
		}
		// And a section lacking a word is never returned.
		first := strings.ToLower(strings.Fields(q)[0])
		for _, sec := range idx.secs {
			if !strings.Contains(strings.ToLower(sec.Text), first) {
				for _, s := range r.Sections {
					if s.URL == sec.URL {
						t.Errorf("%q returned %s, which lacks %q", q, s.URL, first)
					}
				}
			}
		}
	}
}

func TestSectionsAndURLs(t *testing.T) {
	secs, err := allSections()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^vx://docs/[a-z0-9_-]+#[a-z0-9_-]+$`)
	seen := map[string]bool{}
	files := map[string]bool{}
	for _, s := range secs {
		files[s.File] = true
		if !re.MatchString(s.URL) {
			t.Errorf("URL %q is not vx://docs/<file-stem>#<anchor>", s.URL)
		}
		if seen[s.URL] {
			t.Errorf("URL %q is not unique", s.URL)
		}
		seen[s.URL] = true
		if got, ok := lookup(s.URL); !ok || got.Text != s.Text {
			t.Errorf("lookup(%q) did not return its section", s.URL)
		}
		if strings.TrimSpace(s.Text) == "" || s.Title == "" {
			t.Errorf("section %q is empty or untitled", s.URL)
		}
	}
	for _, f := range []string{"config.md", "cli.md", "vxd.md", "mcp.md", "cache.md", "history.md", "troubleshooting.md"} {
		if !files[f] {
			t.Errorf("docs/%s is missing from the embedded reference", f)
		}
	}
	if _, ok := lookup("vx://docs/nope#nothing"); ok {
		t.Error("lookup of an unknown URL succeeded")
	}

	// Stable anchors: every URL once published keeps resolving. New sections
	// are fine; a renamed heading breaks links, so it must be deliberate
	// (go test -run TestSectionsAndURLs -update).
	golden := filepath.Join("testdata", "urls.golden")
	if *update {
		var list []string
		for _, s := range secs {
			list = append(list, s.URL)
		}
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(strings.Join(list, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading %s: %v (run with -update to create it)", golden, err)
	}
	for _, u := range strings.Fields(string(b)) {
		if !seen[u] {
			t.Errorf("published URL %s no longer resolves: a heading was renamed or removed (restore it, or run with -update if the break is intended)", u)
		}
	}
}

func TestResultJSON(t *testing.T) {
	r, err := Search("vxd token", 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"query", "limit", "total", "sections"} {
		if _, ok := m[k]; !ok {
			t.Errorf("answer JSON lacks %q: %s", k, b)
		}
	}
	sec := m["sections"].([]any)[0].(map[string]any)
	for _, k := range []string{"title", "url", "file", "text", "score"} {
		if _, ok := sec[k]; !ok {
			t.Errorf("section JSON lacks %q", k)
		}
	}
}

func BenchmarkSearch(b *testing.B) {
	if _, err := load(); err != nil {
		b.Fatal(err)
	}
	queries := []string{"cache", "why did this rerun", "mcp.run", "--filter tag", "secret exec.env value", "zzyzx"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Search(queries[i%len(queries)], 5); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIndex(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := build(docs.FS); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGivenZeroLimitClamps: a limit of 0 that the caller gave is out of
// range like any other, so it is clamped to 1 and the note says so; only
// an absent limit means the default.
func TestGivenZeroLimitClamps(t *testing.T) {
	r, err := SearchLimit("task", 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Limit != 1 || !strings.Contains(r.Note, "limit 0 is below the minimum; 1 applied") {
		t.Errorf("given limit 0: applied %d, note %q; want 1 and a note saying so", r.Limit, r.Note)
	}
	r, err = SearchLimit("task", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Limit != defaultLimit || strings.Contains(r.Note, "limit accepts") {
		t.Errorf("no limit: applied %d, note %q; want %d and no limit note", r.Limit, r.Note, defaultLimit)
	}
}
