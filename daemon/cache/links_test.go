package cache

import (
	"errors"
	"testing"
)

func TestCheckLinks(t *testing.T) {
	link := func(p, target string) fileEntry { return fileEntry{Path: p, Type: typeSymlink, Target: target} }
	inside := [][]fileEntry{
		{link("dist/latest.js", "main.js")},
		{link("dist/lib", "../node_modules/lib")},
		{link("dist/dangling", "nowhere/at/all")},
		{link("a/b/c", "../../x"), link("top", "a/b/c")},
		{link("d/hop", "sub/deeper"), link("d/via", "hop/../x")},
		{link("x", "./y//z/")},
	}
	for _, files := range inside {
		if err := checkLinks(files); err != nil {
			t.Errorf("%v refused: %v", files, err)
		}
	}
	outside := [][]fileEntry{
		{link("bin/tool", "/usr/bin/env")},
		{link("dist/up", "../../x")},
		{link("up", "..")},
		{link("dist/hop", ".."), link("dist/via", "hop/../escape")},
		{link("a", "b/.."), link("b", "..")},
		{link("loop1", "loop2/x"), link("loop2", "loop1/y")},
		{link("w", `..\..\x`)},
	}
	for _, files := range outside {
		if err := checkLinks(files); !errors.Is(err, ErrOutsideLink) {
			t.Errorf("%v: %v, want ErrOutsideLink", files, err)
		}
	}
}
