package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The sandbox's cost per task: a plain sh -c against the same command
// confined (Landlock and the observer), writing one file inside its roots
// (two watched calls), and a quiet command making none (the observer's
// fixed cost). Output goes to a pipe, as the runner's does (with a nil
// Stdout, exec.Cmd would open /dev/null for writing on the confined thread:
// two watched calls of vx's own).
func BenchmarkTask(b *testing.B) {
	dir := b.TempDir()
	const command = "mkdir -p dist && echo x > dist/out"
	const quiet = "exit 0"
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/sh", "-c", command)
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	v := Detect()
	b.Run("plain-quiet", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command("/bin/sh", "-c", quiet)
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	confinedCommand := func(b *testing.B, command string, landlock, observe bool) {
		for b.Loop() {
			runConfined(b, dir, command, &Policy{Landlock: landlock, Observe: observe, ABI: v.ABI})
		}
	}
	confined := func(b *testing.B, landlock, observe bool) { confinedCommand(b, command, landlock, observe) }
	b.Run("confined", func(b *testing.B) { confined(b, v.Landlock, v.Observer != "") })
	b.Run("landlock", func(b *testing.B) { confined(b, v.Landlock, false) })
	b.Run("observer", func(b *testing.B) { confined(b, false, v.Observer != "") })
	b.Run("observer-quiet", func(b *testing.B) { confinedCommand(b, quiet, false, v.Observer != "") })
	_ = os.RemoveAll(filepath.Join(dir, "dist"))
}

// runConfined runs command in dir under p with dist/** as its write root
// (the benchmarks' task) and fails on an error or any violation.
func runConfined(tb testing.TB, dir, command string, p *Policy) {
	tb.Helper()
	p.WriteDirs, p.WriteFiles = WriteRoots(dir, []string{"dist/**"}, "")
	p.Resolve()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, io.Discard
	s, err := Start(cmd, p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.Wait(); err != nil {
		tb.Fatal(err)
	}
	if vs := s.Finish(); len(vs) != 0 {
		tb.Fatal(vs)
	}
}
