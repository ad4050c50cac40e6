package harness

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// Binary is one binary a suite's tests run: the Go package Pkg (relative
// to the module root) built with Flags to Path (relative to the suite's
// temporary directory). Dest receives its absolute path. Where Given names
// an environment variable that is set, its value is the binary instead
// and nothing is built (a release, or a tree nobody is editing).
type Binary struct {
	Dest  *string
	Path  string
	Pkg   string
	Flags []string
	Given string
}

// Suite is what an integration suite's TestMain does around its tests:
// build the binaries once into a fresh temporary directory (TempPrefix
// names it), run Ready with that directory (may be nil), the tests, then
// Done (may be nil), and remove the directory.
type Suite struct {
	TempPrefix string
	Binaries   []Binary
	Ready      func(dir string)
	Done       func()
}

// Run is the body of TestMain (os.Exit(s.Run(m))): the tests' exit code,
// or 1 with the reason on stderr where a binary could not be had.
func (s Suite) Run(m *testing.M) int {
	dir, err := os.MkdirTemp("", s.TempPrefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, "creating temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	for _, b := range s.Binaries {
		if err := b.make(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if s.Ready != nil {
		s.Ready(dir)
	}
	code := m.Run()
	if s.Done != nil {
		s.Done()
	}
	return code
}

func (b Binary) make(dir string) error {
	if b.Given != "" {
		if v := os.Getenv(b.Given); v != "" {
			abs, err := filepath.Abs(v)
			if err != nil {
				return fmt.Errorf("%s=%q: %w", b.Given, v, err)
			}
			*b.Dest = abs
			return nil
		}
	}
	*b.Dest = filepath.Join(dir, b.Path)
	return Build(*b.Dest, b.Pkg, b.Flags...)
}

// Bearer is a RoundTripper that sends each request by
// http.DefaultTransport with "Authorization: Bearer" and the token.
type Bearer string

// RoundTrip adds the header to a copy of r and sends it.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// BearerClient is an HTTP client whose every request carries token.
func BearerClient(token string) *http.Client {
	return &http.Client{Transport: Bearer(token)}
}
