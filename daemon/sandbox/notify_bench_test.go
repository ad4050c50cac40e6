package sandbox

import (
	"io"
	"os/exec"
	"testing"
	"time"
)

// What one watched call costs once its process is warm: a shell truncating
// a file inside its outputs a thousand times (one notification each),
// plain and observed. Reported per call.
func BenchmarkNotification(b *testing.B) {
	dir := b.TempDir()
	const calls = 1000
	const command = "mkdir -p dist; i=0; while [ $i -lt 1000 ]; do : > dist/f; i=$((i+1)); done"
	v := Detect()
	for _, observe := range []bool{false, true} {
		name := "plain"
		if observe {
			name = "observed"
		}
		b.Run(name, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				dirs, files := WriteRoots(dir, []string{"dist/**"}, "")
				p := &Policy{Observe: observe && v.Observer != "", ABI: v.ABI, WriteDirs: dirs, WriteFiles: files}
				p.Resolve()
				cmd := exec.Command("/bin/sh", "-c", command)
				cmd.Dir, cmd.Stdout, cmd.Stderr = dir, io.Discard, io.Discard
				s, err := Start(cmd, p)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Wait(); err != nil {
					b.Fatal(err)
				}
				if vs := s.Finish(); len(vs) != 0 {
					b.Fatal(vs)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
