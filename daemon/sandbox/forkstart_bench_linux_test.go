package sandbox

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkForkedOrThreadStart measures what the forked start (vx's own
// clone3 and exec, fork_linux.go) buys over the start every architecture
// has (a confined, locked thread that runs os/exec): each iteration runs
// the cold benchmark's task once each way, in an order that alternates,
// as the runner starts it (own process group, parent-death signal), so
// both see the same machine. "pair" runs two such tasks at once each way,
// as two workers do. Reported: the median wall time of a task (or pair)
// each way, the median of the iterations' thread/forked ratios, and CPU
// (user + system of this process and its reaped children) per task each
// way.
//
//	go test -run '^$' -bench BenchmarkForkedOrThreadStart -benchtime 400x ./daemon/sandbox/
func BenchmarkForkedOrThreadStart(b *testing.B) {
	if !canFork {
		b.Skip("no forked start on this architecture")
	}
	v := Detect()
	for _, c := range []struct {
		name              string
		landlock, observe bool
		pair              bool
	}{
		{"enforce", v.Landlock, v.Observer != "", false},
		{"landlock", v.Landlock, false, false},
		{"report", false, v.Observer != "", false},
		{"enforce-pair", v.Landlock, v.Observer != "", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			dirs := taskDirs(b)
			var wall [2][]time.Duration
			var ratios []float64
			var cpu [2]time.Duration
			i := 0
			for b.Loop() {
				var took [2]time.Duration
				for k := range 2 {
					thread := (i+k)%2 == 1
					w := 0
					if thread {
						w = 1
					}
					t0, c0 := time.Now(), cpuUsed()
					n := 1
					if c.pair {
						n = 2
					}
					startTasks(b, dirs[:n], thread, c.landlock, c.observe, v.ABI)
					took[w] = time.Since(t0)
					cpu[w] += cpuUsed() - c0
					wall[w] = append(wall[w], took[w])
				}
				ratios = append(ratios, float64(took[1])/float64(took[0]))
				i++
			}
			tasks := float64(b.N)
			if c.pair {
				tasks *= 2
			}
			b.ReportMetric(medianMs(wall[0]), "forked-ms")
			b.ReportMetric(medianMs(wall[1]), "thread-ms")
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "thread/forked")
			b.ReportMetric(float64(cpu[0].Microseconds())/tasks, "forked-cpu-µs/task")
			b.ReportMetric(float64(cpu[1].Microseconds())/tasks, "thread-cpu-µs/task")
		})
	}
}

// taskDirs makes two task directories holding src/a.js.
func taskDirs(b *testing.B) [2]string {
	var dirs [2]string
	for w := range dirs {
		dirs[w] = filepath.Join(b.TempDir(), "src")
		if err := os.MkdirAll(dirs[w], 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[w], "a.js"), []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		dirs[w] = filepath.Dir(dirs[w])
	}
	return dirs
}

// startTasks runs the cold benchmark's task in each dir at once, confined
// by Start, from a confined thread when thread is set.
func startTasks(b *testing.B, dirs []string, thread, landlock, observe bool, abi int) {
	var wg sync.WaitGroup
	for _, dir := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			os.RemoveAll(filepath.Join(dir, "dist"))
			cmd := exec.Command("/bin/sh", "-c", "mkdir -p dist && cat src/*.js > dist/index.js")
			cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, io.Discard
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			if thread {
				// A setting forkable refuses and os/exec ignores without
				// CLONE_NEWUSER: the thread start, nothing else changed.
				cmd.SysProcAttr.GidMappingsEnableSetgroups = true
			}
			p := &Policy{Landlock: landlock, Observe: observe, ABI: abi}
			p.WriteDirs, p.WriteFiles = WriteRoots(dir, []string{"dist/**"}, "")
			s, err := Start(cmd, p)
			if err != nil {
				b.Error(err)
				return
			}
			if (s.io == nil) != thread {
				b.Errorf("thread start %v, want %v", s.io == nil, thread)
			}
			err = s.Wait()
			s.Finish()
			if err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
}

// medianMs is the median of ds in milliseconds.
func medianMs(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1e3
}
