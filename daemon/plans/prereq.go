package plans

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/lockfile"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// maxDirty bounds the uncommitted paths whose content is hashed; beyond
// it a path counts by name and size only.
const maxDirty = 10000

// prerequisites reads, from disk and git, the state plan was made
// against: the configuration files (as a fresh load lists them), vx.lock,
// git HEAD and the uncommitted state, and the plan's task keys.
func prerequisites(ctx context.Context, root string, plan *wire.Plan) (*wire.PlanPrerequisites, error) {
	m, err := workspace.Load(root)
	if err != nil {
		return nil, fmt.Errorf("loading the workspace configuration: %w", err)
	}
	return prerequisitesOf(ctx, root, m.Files, plan)
}

// prerequisitesOf is Prerequisites with the configuration files of a
// model already loaded.
func prerequisitesOf(ctx context.Context, root string, files []string, plan *wire.Plan) (*wire.PlanPrerequisites, error) {
	pr := &wire.PlanPrerequisites{ConfigFiles: map[string]string{}, TaskKeys: map[string]string{}}
	for _, f := range files {
		h, err := fileHash(f)
		if err != nil {
			return nil, fmt.Errorf("hashing %s: %w", f, err)
		}
		pr.ConfigFiles[rel(root, f)] = h
	}
	if h, err := fileHash(filepath.Join(root, lockfile.Name)); err == nil {
		pr.Lock = h
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("hashing %s: %w", lockfile.Name, err)
	}
	if err := gitState(ctx, root, pr); err != nil {
		return nil, err
	}
	for _, t := range plan.Tasks {
		pr.TaskKeys[t.TaskID] = t.Key
	}
	return pr, nil
}

func rel(root, f string) string {
	if r, err := filepath.Rel(root, f); err == nil {
		return filepath.ToSlash(r)
	}
	return f
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// gitState fills GitHead and the dirty state; outside a repository (or
// without git) both stay empty.
func gitState(ctx context.Context, root string, pr *wire.PlanPrerequisites) error {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	if out, err := git("rev-parse", "--is-inside-work-tree"); err != nil || strings.TrimSpace(string(out)) != "true" {
		return nil
	}
	if out, err := git("rev-parse", "--verify", "-q", "HEAD"); err == nil {
		pr.GitHead = strings.TrimSpace(string(out))
	} // a repository without commits has no HEAD yet
	out, err := git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
	if err != nil {
		return err
	}
	var entries []string
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		status, path := e[:2], e[3:]
		if status[0] == 'R' || status[0] == 'C' {
			i++ // the source path of a rename or copy follows
		}
		if strings.HasPrefix(path, ".vx/") {
			continue // vx's own state, not an input
		}
		entries = append(entries, status+" "+path)
	}
	if len(entries) == 0 {
		return nil
	}
	sort.Strings(entries)
	h := sha256.New()
	for i, e := range entries {
		path := filepath.Join(root, filepath.FromSlash(e[3:]))
		sum := "-"
		if st, err := os.Lstat(path); err == nil {
			if i < maxDirty && st.Mode().IsRegular() {
				sum, _ = fileHash(path)
			} else {
				sum = fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
			}
		}
		fmt.Fprintf(h, "%s\x00%s\x00", e, sum)
	}
	pr.GitDirty = hex.EncodeToString(h.Sum(nil))
	pr.DirtyFiles = len(entries)
	return nil
}

// maxMoved bounds the differences a refusal lists.
const maxMoved = 20

// moved lists, in words, every prerequisite of was that now differs.
func moved(was, now *wire.PlanPrerequisites) []string {
	var out []string
	out = append(out, mapDiff(was.ConfigFiles, now.ConfigFiles,
		func(k string) string { return k + " was added" },
		func(k string) string { return k + " was removed" },
		func(k, _, _ string) string { return k + " changed" })...)
	switch {
	case was.Lock == now.Lock:
	case was.Lock == "":
		out = append(out, lockfile.Name+" was added")
	case now.Lock == "":
		out = append(out, lockfile.Name+" was removed")
	default:
		out = append(out, lockfile.Name+" changed")
	}
	if was.GitHead != now.GitHead {
		out = append(out, fmt.Sprintf("git HEAD moved from %s to %s", short(was.GitHead), short(now.GitHead)))
	}
	if was.GitDirty != now.GitDirty {
		out = append(out, fmt.Sprintf("the uncommitted changes differ (%d changed or untracked files when planned, %d now)", was.DirtyFiles, now.DirtyFiles))
	}
	out = append(out, mapDiff(was.TaskKeys, now.TaskKeys,
		func(k string) string { return k + " would now run too" },
		func(k string) string { return k + " would no longer run" },
		func(k, a, b string) string { return fmt.Sprintf("%s's key changed (%s → %s)", k, short(a), short(b)) })...)
	if len(out) > maxMoved {
		out = append(out[:maxMoved], fmt.Sprintf("and %d more", len(out)-maxMoved))
	}
	return out
}

func mapDiff(was, now map[string]string, added, removed func(string) string, changed func(k, a, b string) string) []string {
	var out []string
	for _, k := range sortedKeys(was) {
		b, ok := now[k]
		switch {
		case !ok:
			out = append(out, removed(k))
		case b != was[k]:
			out = append(out, changed(k, was[k], b))
		}
	}
	for _, k := range sortedKeys(now) {
		if _, ok := was[k]; !ok {
			out = append(out, added(k))
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func short(s string) string {
	switch {
	case s == "":
		return "(none)"
	case len(s) > 12:
		return s[:12]
	}
	return s
}
