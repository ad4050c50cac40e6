package runner

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// maxLinkedFiles bounds the files listed through symbolic links to
// projects (listLinked), all projects together.
const maxLinkedFiles = 200_000

// listLinked lists the files of each project the workspace's listing
// holds none of because its directory is, or lies beneath, a symbolic
// link: git lists the link alone (as a file, or its directory's), so its inputs would match nothing and
// an edit of one would never change the key. Its files are listed by a
// walk of the directory the link names (without node_modules and .git),
// into byDir, and hashed there (projectBase): outside the workspace, no
// file is taken from vxd's journal, which does not watch it. A project
// whose directory is no link, its files all ignored by git, stays as git
// lists it.
func (p *Prepared) listLinked(byDir map[string][]string, recsByDir map[string][]int32) error {
	total := 0
	for _, pr := range p.Model.Projects {
		if pr.Dir == "" || pr.Dir == "." || !onlyItself(pr.Dir, byDir[pr.Dir]) {
			continue
		}
		abs := filepath.Join(p.Model.Root, filepath.FromSlash(pr.Dir))
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || real == abs {
			continue
		}
		files, err := walkLinked(real, maxLinkedFiles-total)
		if err != nil {
			return fmt.Errorf("project %s (%s, a symbolic link to %s): %w", pr.Name, pr.Dir, real, err)
		}
		total += len(files)
		byDir[pr.Dir], recsByDir[pr.Dir] = files, nil
		if p.linked == nil {
			p.linked = map[string]string{}
		}
		p.linked[pr.Dir] = real
	}
	return nil
}

// onlyItself reports whether a project's listed files are none, or its
// directory alone (git lists a symbolic link as a file of its own).
func onlyItself(dir string, listed []string) bool {
	return len(listed) == 0 || len(listed) == 1 && listed[0] == dir
}

// walkLinked lists the files under dir as slash paths relative to it,
// without node_modules and .git; more than limit is an error.
func walkLinked(dir string, limit int) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (d.Name() == "node_modules" || d.Name() == ".git") {
				return filepath.SkipDir
			}
			return nil
		}
		if len(files) >= limit {
			return fmt.Errorf("more than %d files behind symbolic links to projects", maxLinkedFiles)
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, err
}

// projectBase is the directory a project's listed files are hashed
// under: the one its symbolic link names for a project listLinked
// listed, else its directory in the workspace.
func (p *Prepared) projectBase(dir string) string {
	if real, ok := p.linked[dir]; ok {
		return real
	}
	return filepath.Join(p.Model.Root, filepath.FromSlash(dir))
}
