package migrate

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/protocol/layout"
)

// gitIgnoreFile is the ignore file vx init adds .vx/ to.
const gitIgnoreFile = ".gitignore"

// actionAppended is a File that exists and gets lines added at its end;
// its Text is the lines added.
const actionAppended = "appended"

// vxIgnoreLine is the line that keeps vx's state out of git.
var vxIgnoreLine = layout.DirName + "/"

// ignoresVX says whether a .gitignore text already ignores .vx at the
// root (.vx, .vx/, /.vx, /.vx/, with or without a trailing /**).
func ignoresVX(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSuffix(strings.TrimSpace(line), "/**")
		l = strings.TrimSuffix(strings.TrimPrefix(l, "/"), "/")
		if l == layout.DirName {
			return true
		}
	}
	return false
}

// gitignore proposes adding .vx/ to the root .gitignore, creating it when
// absent; nothing when it already ignores .vx.
func (b *builder) gitignore() {
	cur, err := os.ReadFile(filepath.Join(b.root, gitIgnoreFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		b.plan.Files = append(b.plan.Files, File{Path: gitIgnoreFile, Action: ActionNew, Text: vxIgnoreLine + "\n"})
	case err != nil:
		b.todo(&srcFile{rel: gitIgnoreFile}, 0, "", fmt.Sprintf("could not read %s (%v): add the line %s to it, to keep vx's cache and history out of git", gitIgnoreFile, err, vxIgnoreLine))
	case !ignoresVX(string(cur)):
		b.plan.Files = append(b.plan.Files, File{Path: gitIgnoreFile, Action: actionAppended, Text: vxIgnoreLine + "\n"})
	}
}

// applyGitIgnore adds .vx/ to root's .gitignore as it is now (it may have
// changed since the plan), creating it when absent, writing through a
// temp file and a rename. It answers whether it wrote.
func applyGitIgnore(root string) (bool, error) {
	path := filepath.Join(root, gitIgnoreFile)
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("reading %s: %w", gitIgnoreFile, err)
	}
	if ignoresVX(string(cur)) {
		return false, nil
	}
	text := string(cur)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		perm = st.Mode().Perm()
	}
	if err := hashing.WriteFileAtomic(path, []byte(text+vxIgnoreLine+"\n"), perm); err != nil {
		return false, fmt.Errorf("writing %s: %w", gitIgnoreFile, err)
	}
	return true, nil
}
