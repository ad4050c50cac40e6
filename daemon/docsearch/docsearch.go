// Package docsearch answers `vx docs QUERY` and the searchDocs MCP tool: it
// splits the embedded reference (package docs) into sections at each "## "
// heading, indexes them once on first use, and returns the sections that
// hold every word of a query, whole, best first, each with a stable URL
// vx://docs/<file-stem>#<anchor>. It reads nothing but the embedded files
// and never touches the network.
package docsearch

import (
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/vzn/vx/docs"
	"github.com/vzn/vx/opkit"
)

// Limits of Search.
const (
	defaultLimit = 5
	MaxLimit     = 50
)

// Section is one "## " section of the reference (or a file's introduction
// before its first one), returned whole.
type Section struct {
	Title string  `json:"title"`
	URL   string  `json:"url"` // stable: vx://docs/<file-stem>#<anchor>
	File  string  `json:"file"`
	Text  string  `json:"text"` // the whole section, markdown
	Score float64 `json:"score"`
}

// Result is the answer of Search: the sections holding every word of the
// query, best first, at most Limit of Total.
type Result struct {
	Query    string    `json:"query"`
	Limit    int       `json:"limit"`
	Total    int       `json:"total"`
	Sections []Section `json:"sections"`
	Note     string    `json:"note,omitempty"`
}

// Search returns the sections holding every word of query, ranked best
// first. Words are split on anything but letters, digits and - _ . / #, and
// compared case-insensitively; a word also matches its plural or singular
// form. A title hit weighs more than a body hit, the query as an exact
// phrase earns a bonus, and shorter sections are slightly preferred. limit
// 0 means DefaultLimit; other values outside 1..MaxLimit are clamped and the
// Note says so. A query with no words is refused with an *opkit.Refusal naming
// the argument "query".
func Search(query string, limit int) (*Result, error) {
	return SearchLimit(query, limit, limit != 0)
}

// SearchLimit is Search where given says whether the caller gave a limit:
// a given 0 is below the minimum, clamped to 1 and noted like any other
// out-of-range limit; only an absent limit means DefaultLimit.
func SearchLimit(query string, limit int, given bool) (*Result, error) {
	words := queryWords(query)
	if len(words) == 0 {
		return nil, opkit.Refuse("query", "%s has no words to search for: give one or more words, e.g. \"cache key\", "+
			"\"--filter\" or \"runTasks\" (a word is letters and digits, optionally joined by - _ . / #)", describeQuery(query))
	}
	idx, err := load()
	if err != nil {
		return nil, err
	}
	var notes []string
	switch {
	case !given:
		limit = defaultLimit
	case limit < 1:
		notes = append(notes, fmt.Sprintf("limit %d is below the minimum; 1 applied (limit accepts 1..%d)", limit, MaxLimit))
		limit = 1
	case limit > MaxLimit:
		notes = append(notes, fmt.Sprintf("limit %d is above the maximum; %d applied (limit accepts 1..%d)", limit, MaxLimit, MaxLimit))
		limit = MaxLimit
	}
	hits := idx.search(words)
	res := &Result{Query: query, Limit: limit, Total: len(hits), Sections: []Section{}}
	for i, h := range hits {
		if i == limit {
			break
		}
		s := idx.secs[h.sec].Section
		s.Score = math.Round(h.score*1000) / 1000
		res.Sections = append(res.Sections, s)
	}
	switch {
	case len(hits) == 0:
		note := "no section holds every word of the query"
		if missing := idx.missing(words); len(missing) > 0 {
			note += fmt.Sprintf("; found nowhere in the reference: %s", strings.Join(missing, ", "))
		}
		notes = append(notes, note+"; try fewer or other words")
	case len(hits) > limit:
		notes = append(notes, fmt.Sprintf("%d more sections match; raise limit (up to %d) or add words to narrow", len(hits)-limit, MaxLimit))
	}
	res.Note = strings.Join(notes, "; ")
	return res, nil
}

// allSections lists every section of the reference in file and heading order.
func allSections() ([]Section, error) {
	idx, err := load()
	if err != nil {
		return nil, err
	}
	out := make([]Section, len(idx.secs))
	for i, s := range idx.secs {
		out[i] = s.Section
	}
	return out, nil
}

// lookup returns the section with the given vx://docs URL.
func lookup(url string) (Section, bool) {
	idx, err := load()
	if err != nil {
		return Section{}, false
	}
	i, ok := idx.byURL[url]
	if !ok {
		return Section{}, false
	}
	return idx.secs[i].Section, true
}

func describeQuery(q string) string {
	if strings.TrimSpace(q) == "" {
		return "an empty query"
	}
	return fmt.Sprintf("the query %q", q)
}

// section is a Section with what ranking needs.
type section struct {
	Section
	titleNorm string // title words joined by single spaces, padded with spaces
	bodyNorm  string // the same for the whole text
	size      int
}

// posting is one section's occurrences of a term.
type posting struct {
	sec         int
	title, body int
}

type index struct {
	secs  []section
	terms map[string][]posting
	byURL map[string]int
}

var (
	once     sync.Once
	theIndex *index
	loadErr  error
)

func load() (*index, error) {
	once.Do(func() { theIndex, loadErr = build(docs.FS) })
	return theIndex, loadErr
}

// build splits every *.md file of fsys into sections and indexes them.
func build(fsys fs.FS) (*index, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, fmt.Errorf("listing the reference: %w", err)
	}
	sort.Strings(names)
	idx := &index{terms: map[string][]posting{}, byURL: map[string]int{}}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("reading the reference: %w", err)
		}
		for _, s := range split(name, string(b)) {
			idx.add(s)
		}
	}
	return idx, nil
}

func (idx *index) add(s Section) {
	i := len(idx.secs)
	// The heading line counts as the title, the rest as the body.
	body := ""
	if j := strings.IndexByte(s.Text, '\n'); j >= 0 {
		body = s.Text[j+1:]
	}
	counts := map[string]*posting{}
	count := func(text string, title bool) {
		for _, tok := range tokens(text) {
			for _, t := range terms(tok) {
				p := counts[t]
				if p == nil {
					p = &posting{sec: i}
					counts[t] = p
				}
				if title {
					p.title++
				} else {
					p.body++
				}
			}
		}
	}
	count(s.Title, true)
	count(body, false)
	for t, p := range counts {
		idx.terms[t] = append(idx.terms[t], *p)
	}
	idx.secs = append(idx.secs, section{Section: s, titleNorm: norm(s.Title), bodyNorm: norm(s.Text), size: len(s.Text)})
	idx.byURL[s.URL] = i
}

type hit struct {
	sec   int
	score float64
}

// variant is one form of a query word and how much a match on it counts.
type variant struct {
	term   string
	weight float64
}

// search ranks the sections holding every word.
func (idx *index) search(words []string) []hit {
	// Resolve each word to the forms it matches; a compound word that the
	// reference never spells whole (tasks.build.timeout) stands for its parts.
	var groups [][]variant
	for _, w := range words {
		if parts := splitCompound(w); len(parts) > 1 && len(idx.terms[w]) == 0 {
			for _, p := range parts {
				groups = append(groups, idx.forms(p))
			}
			continue
		}
		groups = append(groups, idx.forms(w))
	}
	score := map[int]float64{}
	for gi, g := range groups {
		titles := map[int]float64{}
		bodies := map[int]float64{}
		for _, v := range g {
			for _, p := range idx.terms[v.term] {
				if gi > 0 {
					if _, ok := score[p.sec]; !ok {
						continue
					}
				}
				titles[p.sec] += float64(p.title) * v.weight
				bodies[p.sec] += float64(p.body) * v.weight
			}
		}
		next := map[int]float64{}
		for sec, b := range bodies {
			t := titles[sec]
			if t == 0 && b == 0 {
				continue
			}
			s := score[sec]
			if t > 0 {
				s += 8 * math.Min(t, 1)
			}
			if b > 0 {
				s += 1 + math.Log1p(b)
			}
			next[sec] = s
		}
		score = next
		if len(score) == 0 {
			return nil
		}
	}
	phrase := " " + strings.Join(words, " ") + " "
	out := make([]hit, 0, len(score))
	for sec, s := range score {
		x := &idx.secs[sec]
		switch {
		case x.titleNorm == phrase:
			s += 20
		case strings.Contains(x.titleNorm, phrase):
			s += 8
		}
		if len(words) > 1 && strings.Contains(x.bodyNorm, phrase) {
			s += 4
		}
		s -= 0.3 * math.Log1p(float64(x.size)/800)
		out = append(out, hit{sec, s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].sec < out[j].sec
	})
	return out
}

// missing lists, quoted, the query words that no section holds in any form.
func (idx *index) missing(words []string) []string {
	var out []string
	for _, w := range words {
		found := false
		for _, v := range idx.forms(w) {
			if len(idx.terms[v.term]) > 0 {
				found = true
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("%q", w))
		}
	}
	return out
}

// forms lists the indexed forms of w: itself, and its plural or singular.
func (idx *index) forms(w string) []variant {
	vs := []variant{{w, 1}}
	add := func(t string) {
		if t != w && len(t) > 1 && len(idx.terms[t]) > 0 {
			vs = append(vs, variant{t, 0.6})
		}
	}
	if strings.HasSuffix(w, "s") {
		add(strings.TrimSuffix(w, "s"))
		if strings.HasSuffix(w, "es") {
			add(strings.TrimSuffix(w, "es"))
		}
	} else {
		add(w + "s")
		add(w + "es")
	}
	return vs
}

// isWordRune reports whether r belongs to a word: letters, digits and the
// joiners - _ . / # that hold names like vx.workspace.json, web#build,
// --filter and src/** together.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./#", r)
}

const joiners = "-_./#"

// tokens splits text into lowercase words.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWordRune(r) })
}

// terms lists what a token is indexed under: the token without leading or
// trailing joiners (a sentence's full stop, the dashes of --flag) and, for
// a compound, each of its parts, so that "workspace" finds
// vx.workspace.json.
func terms(tok string) []string {
	t := strings.Trim(tok, joiners)
	if t == "" {
		return nil
	}
	out := []string{t}
	if parts := splitCompound(t); len(parts) > 1 {
		seen := map[string]bool{t: true}
		for _, p := range parts {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

func splitCompound(t string) []string {
	return strings.FieldsFunc(t, func(r rune) bool { return strings.ContainsRune(joiners, r) })
}

// queryWords lists the distinct words of a query, in order.
func queryWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, tok := range tokens(q) {
		w := strings.Trim(tok, joiners)
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// norm is text as its words, trimmed, joined and padded with single spaces,
// for phrase matching on word boundaries.
func norm(text string) string {
	toks := tokens(text)
	words := make([]string, 0, len(toks))
	for _, t := range toks {
		if w := strings.Trim(t, joiners); w != "" {
			words = append(words, w)
		}
	}
	return " " + strings.Join(words, " ") + " "
}

// split cuts one markdown file into its sections: the text before the first
// "## " heading (titled by the file's "# " heading) and each "## " section
// up to the next one. Headings inside fenced code blocks do not count.
func split(name, src string) []Section {
	stem := strings.TrimSuffix(path.Base(name), ".md")
	var out []Section
	used := map[string]int{}
	var cur []string
	title := ""
	flush := func() {
		text := strings.TrimRight(strings.Join(cur, "\n"), " \t\n") + "\n"
		cur = nil
		if strings.TrimSpace(text) == "" {
			return
		}
		t := title
		if t == "" {
			t = stem
		}
		anchor := slug(t)
		if n := used[anchor]; n > 0 {
			used[anchor] = n + 1
			anchor = fmt.Sprintf("%s-%d", anchor, n)
		} else {
			used[anchor] = 1
		}
		out = append(out, Section{Title: plain(t), URL: "vx://docs/" + stem + "#" + anchor, File: name, Text: text})
	}
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"):
			fence = "```"
		case strings.HasPrefix(trimmed, "~~~"):
			fence = "~~~"
		case strings.HasPrefix(line, "## "):
			flush()
			title = heading(line[3:])
		case strings.HasPrefix(line, "# ") && title == "" && len(out) == 0:
			title = heading(line[2:])
		}
		cur = append(cur, line)
	}
	flush()
	return out
}

// heading is a heading's text without closing #s.
func heading(s string) string {
	s = strings.TrimSpace(s)
	if t := strings.TrimRight(s, "#"); t != s && strings.HasSuffix(t, " ") {
		s = strings.TrimSpace(t)
	}
	return s
}

// plain drops inline markdown (code ticks, emphasis) from a title.
func plain(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("`", "", "**", "", "*", "").Replace(s)), " ")
}

// slug is GitHub's anchor for a heading: lowercase, letters, digits, spaces,
// hyphens and underscores kept, spaces turned into hyphens, so a section's
// URL matches the anchor of the same file rendered on GitHub.
func slug(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(plain(s)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
