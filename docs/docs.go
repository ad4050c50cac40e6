// Package docs is vx's reference: the markdown files of this directory,
// embedded in the binary so that `vx docs` and the searchDocs MCP tool answer
// without the source tree or a network. Package docsearch indexes them.
package docs

import "embed"

// FS holds every *.md file of the docs directory at build time.
//
//go:embed *.md
var FS embed.FS
