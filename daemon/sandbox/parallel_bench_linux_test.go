package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// BenchmarkTwoTasksAtOnce runs the cold benchmark's task (mkdir -p dist
// && cat src/*.js > dist/index.js) two at a time, as two workers on two
// CPUs do, with none of the runner's work around it: started by os/exec,
// by the forked start with an empty policy, confined by Landlock, and
// confined and observed. ns/op is the wall time of one pair. Compare the
// sub-benchmarks over several -count runs (they run one after the other,
// not alternated).
func BenchmarkTwoTasksAtOnce(b *testing.B) {
	v := Detect()
	for _, c := range []struct {
		name              string
		forked            bool
		landlock, observe bool
	}{
		{"exec", false, false, false},
		{"forked", true, false, false},
		{"landlock", true, v.Landlock, false},
		{"observed", true, v.Landlock, v.Observer != ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			base := b.TempDir()
			dirs := [2]string{}
			for w := range dirs {
				dirs[w] = filepath.Join(base, strconv.Itoa(w))
				if err := os.MkdirAll(filepath.Join(dirs[w], "src"), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dirs[w], "src", "a.js"), []byte("x\n"), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				var wg sync.WaitGroup
				for _, dir := range dirs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if err := runTask(dir, c.forked, &Policy{Landlock: c.landlock, Observe: c.observe, ABI: v.ABI}); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}

// runTask runs the benchmark's task in dir as the runner starts one (its
// own process group, a parent-death signal), through os/exec unless forked.
func runTask(dir string, forked bool, p *Policy) error {
	os.RemoveAll(filepath.Join(dir, "dist"))
	cmd := exec.Command("/bin/sh", "-c", "mkdir -p dist && cat src/*.js > dist/index.js")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, io.Discard
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if !forked {
		return cmd.Run()
	}
	p.WriteDirs, p.WriteFiles = WriteRoots(dir, []string{"dist/**"}, "")
	s, err := Start(cmd, p)
	if err != nil {
		return err
	}
	err = s.Wait()
	s.Finish()
	return err
}
