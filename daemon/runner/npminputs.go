package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/vzn/vx/daemon/hashing"
	"github.com/vzn/vx/daemon/workspace"
)

// npmLockMax bounds the lockfile read for npm: inputs.
const npmLockMax = 256 << 20

// npmLock answers npm: inputs from the workspace's lockfile, read once per
// run.
type npmLock struct {
	once sync.Once
	err  error
	// From package-lock.json (lockfileVersion 2 or 3): each installed
	// package by its path ("node_modules/a/node_modules/b").
	pkgs map[string]npmLocked
	// Another lockfile (pnpm, yarn, bun, npm v1): its contents' hash
	// stands for every package.
	whole string
	// sums holds sum's answers by package name: many tasks name the same
	// packages, and each sum walks the package's whole dependency tree.
	sums sync.Map
}

type npmLocked struct {
	Version              string            `json:"version"`
	Integrity            string            `json:"integrity"`
	Link                 bool              `json:"link"`
	Dependencies         map[string]string `json:"dependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
}

func (l *npmLock) load(root string) error {
	l.once.Do(func() {
		for _, name := range []string{"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"} {
			b, err := readBounded(filepath.Join(root, name))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				l.err = err
				return
			}
			var lock struct {
				Packages map[string]npmLocked `json:"packages"`
			}
			if strings.HasSuffix(name, ".json") && json.Unmarshal(b, &lock) == nil && len(lock.Packages) > 0 {
				l.pkgs = lock.Packages
			} else {
				l.whole = name + " " + hashing.Sum(b)
			}
			return
		}
	})
	return l.err
}

func readBounded(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, npmLockMax+1))
	if err == nil && len(b) > npmLockMax {
		err = fmt.Errorf("%s is over %d MiB", p, npmLockMax>>20)
	}
	return b, err
}

// resolve is where a package at dir (a lockfile path, "" for the root)
// finds dependency name, as Node resolves it: the nearest node_modules up
// from dir; "" when the lockfile has none.
func (l *npmLock) resolve(dir, name string) string {
	for {
		p := path.Join(dir, "node_modules", name)
		if _, ok := l.pkgs[p]; ok {
			return p
		}
		if dir == "" {
			return ""
		}
		i := strings.LastIndex(dir, "/node_modules/")
		if i < 0 {
			dir = ""
		} else {
			dir = dir[:i]
		}
	}
}

// sum is the hash of package name as the lockfile resolves it from the
// root, with every package it depends on, directly or not: their paths,
// versions and integrities. A package the lockfile lacks sums as absent.
func (l *npmLock) sum(name string) string {
	if l.pkgs == nil {
		return l.whole
	}
	if s, ok := l.sums.Load(name); ok {
		return s.(string)
	}
	s := l.treeSum(name)
	l.sums.Store(name, s)
	return s
}

// treeSum is sum's answer, computed.
func (l *npmLock) treeSum(name string) string {
	seen := map[string]bool{}
	var lines []string
	stack := []string{l.resolve("", name)}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		pk := l.pkgs[p]
		lines = append(lines, p+"@"+pk.Version+" "+pk.Integrity)
		for _, deps := range []map[string]string{pk.Dependencies, pk.OptionalDependencies, pk.PeerDependencies} {
			for d := range deps {
				stack = append(stack, l.resolve(p, d))
			}
		}
	}
	if len(lines) == 0 {
		return ""
	}
	sort.Strings(lines)
	return hashing.SumString(strings.Join(lines, "\n"))
}

// hashNpmInputs adds to files, for each "npm:NAME" input of a node, the
// sum of that package and its dependencies as the lockfile pins them,
// keyed "npm:NAME".
func (p *Prepared) hashNpmInputs(n *workspace.Node, files map[string]string) error {
	names := workspace.NpmInputs(n.Def.Inputs)
	if len(names) == 0 {
		return nil
	}
	if err := p.npm.load(p.Model.Root); err != nil {
		return fmt.Errorf("reading the lockfile for %s's npm: inputs: %w", n.ID, err)
	}
	for _, name := range names {
		files["npm:"+name] = p.npm.sum(name)
	}
	return nil
}
