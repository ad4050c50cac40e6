package vx

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/daemon/ops"
)

var docsBinding = cmdline.Bind(reflect.TypeFor[ops.SearchDocsInput]())

func docsVerb(ctx context.Context, s *cmdline.IO, argv []string) error {
	b := docsBinding
	a, format, help, err := cmdline.Command(s, cmdline.Verb{Name: "docs", Synopsis: "docs QUERY... [flags]", Answers: true,
		About: "\nSearches the reference embedded in vx (no network): the sections holding every word, best first.\n",
		Bind:  b}, argv)
	if help || err != nil {
		return err
	}
	var in ops.SearchDocsInput
	if err := fill(b, a, &in); err != nil {
		return err
	}
	out, err := ops.SearchDocs(ctx, in)
	return answer(s, b, format, out, err, func(w io.Writer, r *docsearch.Result) {
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
