package runner

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// GitHead reads the branch and commit of the repository holding root from
// .git directly (no git process on the hot path). Both are "" outside git.
func GitHead(root string) (branch, commit string) {
	gitDir := ""
	for dir := root; ; {
		p := filepath.Join(dir, ".git")
		if st, err := os.Stat(p); err == nil {
			if st.IsDir() {
				gitDir = p
			} else if b, err := os.ReadFile(p); err == nil && strings.HasPrefix(string(b), "gitdir: ") {
				gitDir = strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir: "))
				if !filepath.IsAbs(gitDir) {
					gitDir = filepath.Join(dir, gitDir)
				}
			}
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
	if gitDir == "" {
		return "", ""
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", ""
	}
	h := strings.TrimSpace(string(head))
	if !strings.HasPrefix(h, "ref: ") {
		return "", h
	}
	ref := strings.TrimPrefix(h, "ref: ")
	branch = strings.TrimPrefix(ref, "refs/heads/")
	common := gitDir
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = filepath.Join(gitDir, strings.TrimSpace(string(b)))
	}
	for _, d := range []string{gitDir, common} {
		if b, err := os.ReadFile(filepath.Join(d, filepath.FromSlash(ref))); err == nil {
			return branch, strings.TrimSpace(string(b))
		}
	}
	if f, err := os.Open(filepath.Join(common, "packed-refs")); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[1] == ref {
				return branch, fields[0]
			}
		}
	}
	return branch, ""
}
