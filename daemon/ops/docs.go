package ops

import (
	"context"
	"errors"

	"github.com/vzn/vx/daemon/docsearch"
)

// SearchDocsInput is vx docs QUERY and the searchDocs tool.
type SearchDocsInput struct {
	// Query is the words to find; every one must occur in a section.
	Query Words `json:"query" jsonschema:"words to find, e.g. \"cache key\" or \"mcp.run\"" pos:"query..."`
	// Limit is how many sections, 1..50 (nil: 5); out of range is clamped
	// with a note.
	Limit *Limit `json:"limit,omitempty" jsonschema:"sections, 1..50 (default 5), clamped" flag:"limit" arg:"N" help:"how many sections (1..50, default 5)"`
}

// SearchDocs finds the reference sections holding every word of the
// query, best first. No network: the reference is embedded.
func SearchDocs(ctx context.Context, in SearchDocsInput) (*docsearch.Result, error) {
	n, given := limit(in.Limit)
	res, err := docsearch.SearchLimit(string(in.Query), n, given)
	var ae *docsearch.ArgError
	if errors.As(err, &ae) {
		return nil, &ArgError{Arg: ae.Arg, Msg: ae.Msg}
	}
	return res, err
}
