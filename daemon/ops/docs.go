package ops

import (
	"context"

	"github.com/vzn/vx/daemon/docsearch"
	"github.com/vzn/vx/opkit"
)

// SearchDocsInput is vx docs QUERY and the searchDocs tool.
type SearchDocsInput struct {
	// Query is the words to find; every one must occur in a section.
	Query opkit.Words `json:"query" jsonschema:"words to find, e.g. \"cache key\" or \"mcp.run\"" pos:"query..."`
	// Limit is how many sections, 1..50 (nil: 5); out of range is clamped
	// with a note.
	Limit *opkit.Limit `json:"limit,omitempty" jsonschema:"sections, 1..50 (default 5), clamped" flag:"limit" arg:"N" help:"how many sections (1..50, default 5)"`
}

// SearchDocs finds the reference sections holding every word of the
// query, best first. No network: the reference is embedded.
func SearchDocs(ctx context.Context, in SearchDocsInput) (*docsearch.Result, error) {
	n, given := limit(in.Limit)
	return docsearch.SearchLimit(string(in.Query), n, given)
}
