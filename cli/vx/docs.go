package vx

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/ops"
)

// searchDocs is vx docs' call of ops.SearchDocs (the searchDocs tool's too).
func searchDocs(query string, limit int, given bool) (*docsearch.Result, error) {
	in := ops.SearchDocsInput{Query: query}
	if given {
		in.Limit = &limit
	}
	return ops.SearchDocs(context.Background(), in)
}

func docsVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	a, err := cmdline.Parse("docs", argv, map[string]cmdline.Spec{
		"limit":  {Kind: cmdline.Value, Arg: "N", Help: "how many sections (1..50, default 5)"},
		"format": {Kind: cmdline.Value, Arg: "text|json", Help: "output format"},
	})
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	if a.Bool("help") {
		fmt.Fprint(s.Out, a.Usage("docs QUERY... [flags]")+"\nSearches the reference embedded in vx (no network): the sections holding every word, best first.\n")
		return nil
	}
	format, err := a.Format()
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	limit, err := a.Int("limit", 0)
	if err != nil {
		return cmdline.UsageError(err.Error())
	}
	out, err := searchDocs(strings.Join(a.Pos(), " "), limit, a.Has("limit"))
	return answer(s, format, out, err, func(w io.Writer, r *docsearch.Result) {
		if len(r.Sections) == 0 {
			fmt.Fprintf(w, "no section holds every word of %q\n", r.Query)
		}
		for i, sec := range r.Sections {
			if i > 0 {
				fmt.Fprintln(w, "\n────────")
			}
			fmt.Fprintf(w, "%s\n\n%s\n", sec.URL, strings.TrimSpace(sec.Text))
		}
		if r.Note != "" {
			fmt.Fprintf(w, "\n(%s)\n", r.Note)
		}
	})
}
