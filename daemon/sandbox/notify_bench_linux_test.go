package sandbox

import (
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
				runConfined(b, dir, command, &Policy{Observe: observe && v.Observer != "", ABI: v.ABI})
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
