// Package anypath reads paths in either of the two forms vx meets them,
// whatever OS it runs on: Unix paths ("/ws/src/a.ts") and Windows paths
// ("C:\ws\src\a.ts", "c:/ws/src/a.ts", "\\server\share\ws", and the
// "\\?\" long-path form). A Windows compiler's output read back on Linux,
// or a config written on Windows and loaded on Linux, mean the same thing
// as they do where they were written.
//
// The workspace-relative paths vx answers (keys, cache entries, why
// diffs, failure locations) are slash-separated on every OS; [Rel] makes
// them. Windows paths compare without regard to case, as NTFS and the
// Windows API compare names.
package anypath

import (
	"path"
	"path/filepath"
	"strings"
)

// NativeWindows says whether this OS's own paths are Windows paths.
const NativeWindows = filepath.Separator == '\\'

// Windows reports whether p is a Windows path on any OS: it starts with a
// drive letter ("C:") or a UNC prefix ("\\server", "//server", "\\?\").
func Windows(p string) bool { return Volume(p) != "" }

// Volume is p's Windows volume: "C:" for a drive, `\\server\share` for a
// UNC path, with any `\\?\` or `\\?\UNC\` long-path prefix dropped; "" when
// p has none.
func Volume(p string) string {
	p = stripLong(p)
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		return p[:2]
	}
	if len(p) < 3 || !isSep(p[0]) || !isSep(p[1]) || isSep(p[2]) {
		return ""
	}
	// \\server\share: the volume runs to the end of the share name.
	rest := p[2:]
	i := strings.IndexAny(rest, `\/`)
	if i < 0 {
		return strings.ReplaceAll(p, "/", `\`)
	}
	j := strings.IndexAny(rest[i+1:], `\/`)
	if j < 0 {
		return strings.ReplaceAll(p, "/", `\`)
	}
	return strings.ReplaceAll(p[:2+i+1+j], "/", `\`)
}

// stripLong drops the `\\?\` (and `\\?\UNC\`) prefix Windows uses for
// paths longer than 260 characters.
func stripLong(p string) string {
	if rest, ok := strings.CutPrefix(p, `\\?\UNC\`); ok {
		return `\\` + rest
	}
	if rest, ok := strings.CutPrefix(p, `\\?\`); ok {
		return rest
	}
	return p
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func isSep(c byte) bool { return c == '/' || c == '\\' }

// IsAbs reports whether p names a place without a directory to start
// from: under win (Windows rules), a path with a volume or rooted at a
// separator ("\src" is the current drive's); otherwise a path starting
// with "/".
func IsAbs(p string, win bool) bool {
	if win {
		return Volume(p) != "" || (p != "" && isSep(p[0]))
	}
	return strings.HasPrefix(p, "/")
}

// Clean is p cleaned by its rules: under win with backslashes, its volume
// kept (a long-path prefix dropped); otherwise as path.Clean.
func Clean(p string, win bool) string {
	if !win {
		return path.Clean(p)
	}
	p = stripLong(p)
	vol := Volume(p)
	rest := strings.ReplaceAll(p[len(vol):], `\`, "/")
	if rest == "" {
		return vol + `\`
	}
	return vol + strings.ReplaceAll(path.Clean(rest), "/", `\`)
}

// Join is p relative to dir, cleaned by win's rules (p relative).
func Join(dir, p string, win bool) string {
	if !win {
		return path.Join(dir, p)
	}
	return Clean(dir+`\`+p, true)
}

// Rel is p as a slash-separated path relative to root, and whether p is
// root or under it. Under win, names compare without regard to case and
// either separator counts.
func Rel(root, p string, win bool) (string, bool) {
	root, p = Clean(root, win), Clean(p, win)
	if win {
		root, p = strings.ReplaceAll(root, `\`, "/"), strings.ReplaceAll(p, `\`, "/")
	}
	if len(p) < len(root) || !sameName(p[:len(root)], root, win) {
		return "", false
	}
	rest := p[len(root):]
	switch {
	case rest == "":
		return ".", true
	case strings.HasSuffix(root, "/"):
		return rest, true
	case rest[0] == '/':
		return rest[1:], true
	}
	return "", false
}

func sameName(a, b string, win bool) bool {
	if win {
		return strings.EqualFold(a, b)
	}
	return a == b
}
