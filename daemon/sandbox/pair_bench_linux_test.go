package sandbox

import (
	"io"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// cpuUsed is this process's CPU time and that of its reaped children: the
// observer's goroutine and the tasks included.
func cpuUsed() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}

// BenchmarkTaskPair runs a plain task and the same task confined one after
// the other, each iteration, and reports the CPU each took (user + system,
// vx's and the task's): alternating task by task, the two see the same
// machine, which BenchmarkTask's sub-benchmarks, seconds apart, do not on a
// shared one. extra-µs/task is what confining costs.
func BenchmarkTaskPair(b *testing.B) {
	v := Detect()
	const command, quiet = "mkdir -p dist && echo x > dist/out", "exit 0"
	for _, c := range []struct {
		name              string
		command           string
		landlock, observe bool
	}{
		{"confined", command, v.Landlock, v.Observer != ""},
		{"landlock", command, v.Landlock, false},
		{"observer", command, false, v.Observer != ""},
		{"observer-quiet", quiet, false, v.Observer != ""},
		{"thread-only", command, false, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			var plain, confined time.Duration
			for b.Loop() {
				t0 := cpuUsed()
				cmd := exec.Command("/bin/sh", "-c", c.command)
				cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, io.Discard
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				t1 := cpuUsed()
				runConfined(b, dir, c.command, &Policy{Landlock: c.landlock, Observe: c.observe, ABI: v.ABI})
				t2 := cpuUsed()
				plain, confined = plain+t1-t0, confined+t2-t1
			}
			n := float64(b.N) * 1e3 // µs
			b.ReportMetric(float64(plain.Nanoseconds())/n, "plain-µs/task")
			b.ReportMetric(float64(confined.Nanoseconds())/n, "confined-µs/task")
			b.ReportMetric(float64((confined-plain).Nanoseconds())/n, "extra-µs/task")
		})
	}
}
