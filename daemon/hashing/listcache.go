package hashing

import (
	"bytes"
	"context"
	"encoding/binary"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/vzn/vx/daemon/records"
	"github.com/vzn/vx/protocol/layout"
)

// A saved listing answers ListFiles without running git when nothing git's
// answer depends on changed. What `git ls-files --cached --others
// --exclude-standard` (less --deleted) prints is a function of the index,
// the names in every directory it walks, the ignore rules and git's
// configuration. So the listing is saved with the stat (mtime, ctime,
// inode, size, mode) of the index, of every directory under the root
// (creating, removing or renaming an entry changes its directory's mtime
// and ctime), of every .gitignore from the repository's top down, of
// info/exclude, the excludes file and every configuration file git read
// (or would read, when absent), and a digest of the environment's GIT_*,
// HOME and XDG_CONFIG_HOME. If all still stat the same, the listing is the
// same; if anything differs, git lists again and the listing is saved
// anew. Only .git, .vx and node_modules directories are not walked: ListFiles
// drops what they hold. A listing is not saved when any of its stats is
// within racyWindow of the walk (timestamps are coarse: a change right
// after it could leave them equal), nor for trees above MaxWatchedDirs
// directories.

const listCacheMagic = "vxlist1\n"

// MaxWatchedDirs bounds the directories a saved listing stats, and those
// vxd's change journal watches: one bound, so that every tree the journal
// vouches for has a saved listing it can vouch for (docs/cache.md). It was
// 20,000 for the listing alone: a tree of 10,000 packages with a src
// directory each (20,002 directories) was listed by git on every run, and
// never left a repeat memo.
const MaxWatchedDirs = 100000

// racyWindow: stats this close to the walk (or later) are not trusted.
var racyWindow = 2 * time.Second

// ListFilesCached is ListFiles, answered from the listing saved at path
// when it still holds (see above); reused reports whether it did. Outside
// git, or with GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE set, it is
// ListFiles.
func ListFilesCached(ctx context.Context, root, path string) (files []string, reused bool, err error) {
	files, reused, _, err = listFilesCached(ctx, root, path, nil)
	return files, reused, err
}

// listFilesCached is ListFilesCached; saved, when this call saved the
// listing anew, is the saved file's identity. keep, when not nil, is given
// the stats of the listing reused or saved.
func listFilesCached(ctx context.Context, root, path string, keep func([]Stamp)) (files []string, reused bool, saved *fileID, err error) {
	env := listEnv(root)
	if files, ok := loadListing(path, env, keep); ok {
		return files, true, nil, nil
	}
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" || os.Getenv("GIT_INDEX_FILE") != "" {
		files, err := ListFiles(ctx, root)
		return files, false, nil, err
	}
	// The listing's own directory exists before the walk stats its parent.
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	start := time.Now()
	// Stat before git lists: a change after a stat is seen by the next run.
	repo, repoOK := gitRepoFiles(ctx, root)
	if !repoOK {
		// Not in git (ListFiles walks): nothing to save.
		files, err := ListFiles(ctx, root)
		return files, false, nil, err
	}
	dirs, walked := walkDirs(root)
	files, err = ListFiles(ctx, root)
	if err != nil || !walked {
		return files, false, nil, err
	}
	stats := append(dirs, repo...)
	for _, st := range stats {
		if st.Exists && (st.Mtime > start.Add(-racyWindow).UnixNano() || st.Ctime > start.Add(-racyWindow).UnixNano()) {
			return files, false, nil, nil
		}
	}
	ino, err := saveListing(path, env, stats, files)
	var now Stat
	if err != nil || StatPath(path, &now) != nil || now.Ino != ino {
		return files, false, nil, nil // not saved, or replaced since by another run
	}
	id := fileIDOf(&now)
	if keep != nil {
		keep(stats)
	}
	return files, false, &id, nil
}

// listEnv is the digest of what a saved listing is valid for besides the
// stats: the root it lists (a workspace copied or moved with its .vx holds
// a listing whose stats are another tree's: checked against that tree it
// would pass while this one differs) and the environment git's answer
// depends on.
func listEnv(root string) string {
	vars := []string{"\x00root=" + root}
	if WalkStart(root) != root {
		// A listing an earlier vx saved for a linked root held no
		// directory's stat: it proved nothing.
		vars = append(vars, "\x00linked root")
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			vars = append(vars, kv)
		}
	}
	sort.Strings(vars)
	return SumString(strings.Join(vars, "\x00"))
}

// walkDirs stats root, every directory under it but .git, .vx and
// node_modules, and every .gitignore in them; false when there are more
// than MaxWatchedDirs directories.
func walkDirs(root string) ([]Stamp, bool) {
	var out []Stamp
	ok := true
	start := WalkStart(root)
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == start {
				return err
			}
			// Unreadable: git cannot list it either, but its stat changes.
			return nil
		}
		if !d.IsDir() {
			// An edit of an ignore file changes only the file.
			if d.Name() == ".gitignore" {
				out = append(out, StampOf(p))
			}
			return nil
		}
		if p != start {
			switch d.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			case layout.DirName:
				if filepath.Dir(p) == root {
					return filepath.SkipDir
				}
			}
		}
		if len(out) >= MaxWatchedDirs {
			ok = false
			return filepath.SkipAll
		}
		out = append(out, StampOf(p))
		return nil
	})
	return out, ok && err == nil
}

// WalkStart is where filepath.WalkDir starts to walk the tree of root:
// root itself, or root with a trailing separator when root is a symbolic
// link (a workspace entered through a link keeps the link's path, and
// WalkDir does not follow a link it starts on: it would walk nothing
// below it). The walk then names the root with that separator and
// everything under it without.
func WalkStart(root string) string {
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return root + string(filepath.Separator)
	}
	return root
}

// gitRepoFiles stats the index, the ignore files from the repository's top
// down to root, and git's configuration and excludes files.
func gitRepoFiles(ctx context.Context, root string) ([]Stamp, bool) {
	cmd := exec.CommandContext(ctx, "git", "rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel")
	cmd.Dir = root
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 3 {
		return nil, false
	}
	gitDir, common, top := lines[0], lines[1], lines[2]
	if !filepath.IsAbs(common) {
		common = filepath.Join(root, common)
	}
	// HEAD too: an includeIf "onbranch:" may change the configuration.
	paths := []string{filepath.Join(gitDir, "index"), filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "config"), filepath.Join(gitDir, "config.worktree"),
		filepath.Join(common, "config"), filepath.Join(common, "config.worktree"), filepath.Join(common, "info", "exclude"), "/etc/gitconfig"}
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if home != "" {
		paths = append(paths, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		paths = append(paths, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "ignore"))
	}
	// The .gitignore of root's ancestors up to the top apply too.
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, false
	}
	if rel, err := filepath.Rel(top, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, false
	}
	for dir := filepath.Dir(real); dir != filepath.Dir(top); dir = filepath.Dir(dir) {
		paths = append(paths, filepath.Join(dir, ".gitignore"))
		if dir == top || filepath.Dir(dir) == dir {
			break
		}
	}
	cfg := exec.CommandContext(ctx, "git", "config", "--list", "--show-origin", "-z")
	cfg.Dir = root
	list, err := cfg.Output()
	if err != nil {
		return nil, false
	}
	fields := bytes.Split(list, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		origin, entry := string(fields[i]), string(fields[i+1])
		if f, ok := strings.CutPrefix(origin, "file:"); ok {
			if !filepath.IsAbs(f) {
				f = filepath.Join(root, f)
			}
			paths = append(paths, f)
		} else if origin != "command line:" {
			return nil, false // a blob or stdin: nothing to stat
		}
		if key, value, ok := strings.Cut(entry, "\n"); ok && strings.EqualFold(key, "core.excludesfile") {
			if rest, ok := strings.CutPrefix(value, "~/"); ok && home != "" {
				value = filepath.Join(home, rest)
			}
			if !filepath.IsAbs(value) {
				value = filepath.Join(root, value)
			}
			paths = append(paths, value)
		}
	}
	stats := make([]Stamp, 0, len(paths))
	for _, p := range paths {
		stats = append(stats, StampOf(p))
	}
	return stats, true
}

// statBytes is one saved stat's size: mtime, ctime, size and inode (8
// bytes each), mode (4), and whether it exists (1).
const statBytes = 37

// saveListing writes the listing and answers the inode it wrote.
func saveListing(path, env string, stats []Stamp, files []string) (uint64, error) {
	var w records.Writer
	w.B.WriteString(listCacheMagic)
	w.Str(env)
	w.Uint(uint64(len(stats)))
	var rec [statBytes]byte
	for _, st := range stats {
		w.Str(st.Path)
		binary.LittleEndian.PutUint64(rec[0:], uint64(st.Mtime))
		binary.LittleEndian.PutUint64(rec[8:], uint64(st.Ctime))
		binary.LittleEndian.PutUint64(rec[16:], uint64(st.Size))
		binary.LittleEndian.PutUint64(rec[24:], st.Ino)
		binary.LittleEndian.PutUint32(rec[32:], st.Mode)
		rec[36] = 0
		if st.Exists {
			rec[36] = 1
		}
		w.B.Write(rec[:])
	}
	w.Uint(uint64(len(files)))
	for _, f := range files {
		w.Str(f)
	}
	return writeFileAtomic(path, w.B.Bytes(), 0o644)
}

// loadListing answers the saved listing when every stat it holds is
// unchanged and it was saved under the same environment.
func loadListing(path, env string, keep func([]Stamp)) ([]string, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	return parseListing(raw, env, nil, keep)
}

// parseListing is loadListing of the file's bytes; the stats of the paths
// skip reports are taken as unchanged (vxd's journal proved them). keep,
// when not nil, is given the listing's stats once it holds.
func parseListing(raw []byte, env string, skip func(string) bool, keep func([]Stamp)) ([]string, bool) {
	var held []Stamp
	files, ok := decodeListing(raw, env, func(want Stamp) bool {
		if keep != nil {
			held = append(held, want)
		}
		return (skip != nil && skip(want.Path)) || StampOf(want.Path) == want
	})
	if ok && keep != nil {
		keep(held)
	}
	return files, ok
}

// decodeListing decodes a saved listing made under env, calling visit for
// each stat it holds; false (from visit, or a listing that does not
// decode) answers no listing.
func decodeListing(raw []byte, env string, visit func(Stamp) bool) ([]string, bool) {
	if !bytes.HasPrefix(raw, []byte(listCacheMagic)) {
		return nil, false
	}
	// One string for the whole file: the paths below share it. It is the
	// caller's buffer itself, which nothing writes once read.
	body := raw[len(listCacheMagic):]
	r := records.Reader{S: unsafe.String(unsafe.SliceData(body), len(body))}
	if r.Str() != env || r.Bad {
		return nil, false
	}
	for n := r.Uint(); n > 0 && !r.Bad; n-- {
		p := r.Str()
		s := r.Bytes(statBytes)
		if r.Bad {
			return nil, false
		}
		want := Stamp{Path: p, Mtime: int64(binary.LittleEndian.Uint64([]byte(s[0:8]))), Ctime: int64(binary.LittleEndian.Uint64([]byte(s[8:16]))),
			Size: int64(binary.LittleEndian.Uint64([]byte(s[16:24]))), Ino: binary.LittleEndian.Uint64([]byte(s[24:32])),
			Mode: binary.LittleEndian.Uint32([]byte(s[32:36])), Exists: s[36] == 1}
		if !visit(want) {
			return nil, false
		}
	}
	n := r.Uint()
	if r.Bad || n > uint64(len(r.S)) {
		return nil, false
	}
	files := make([]string, 0, n)
	for ; n > 0; n-- {
		files = append(files, r.Str())
	}
	return files, !r.Bad && len(r.S) == 0
}
