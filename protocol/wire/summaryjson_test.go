package wire

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// RunSummary's AppendJSON gives json.Marshal's bytes for every summary:
// rows of every shape, nil and empty lists, the remote cache's report,
// floats json.Marshal refuses, times it refuses.
func TestRunSummaryAppendJSONIsMarshal(t *testing.T) {
	strs := []string{"", "a", "web#build", "say \"hi\"", `back\slash`, "<b>&amp;</b>", "tab\there", "é ü 世界", "\u2028", "bad \xff utf8"}
	times := []time.Time{{}, time.Date(2026, 12, 1, 14, 5, 45, 237753875, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 5*3600+1800)),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	floats := []float64{0, 1.5, 1e-7, 3e21, 2, math.NaN()}
	r := rand.New(rand.NewPCG(3, 4))
	pick := func() string { return strs[r.IntN(len(strs))] }
	list := func() []string {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return []string{pick(), pick()}
	}
	row := func() TaskRow {
		row := TaskRow{TaskID: pick(), Project: pick(), Task: pick(), Status: pick(), Cache: pick(), CacheSource: pick(), Key: pick(),
			DurationMs: int64(r.IntN(3) - 1), Reason: pick(), BlockedBy: list(), TimedOut: r.IntN(2) == 0, PeakRSSBytes: int64(r.IntN(2)),
			Outputs: r.IntN(3) - 1}
		if r.IntN(2) == 0 {
			code := r.IntN(3) - 1
			row.ExitCode = &code
		}
		if r.IntN(8) == 0 {
			row.CPUParallelism = floats[r.IntN(len(floats))]
		}
		if r.IntN(8) == 0 {
			row.SandboxViolations = []SandboxViolation{{Op: pick(), Path: pick(), Pid: 7, Denied: true}}
		}
		return row
	}
	for i := 0; i < 3000; i++ {
		s := RunSummary{RunID: pick(), OK: r.IntN(2) == 0, ExitCode: r.IntN(3) - 1, Status: pick(), Command: pick(),
			StartedAt: times[r.IntN(len(times))], EndedAt: times[r.IntN(len(times))], DurationMs: int64(r.IntN(3) - 1),
			GitBranch: pick(), GitCommit: pick(), Totals: RunTotals{Tasks: 3, Cached: 2, RemoteHits: r.IntN(2)}, Warnings: list(), RepeatOf: pick()}
		if r.IntN(4) > 0 {
			s.Tasks = []TaskRow{}
			for n := r.IntN(4); n > 0; n-- {
				s.Tasks = append(s.Tasks, row())
			}
		}
		if r.IntN(4) == 0 {
			s.Remote = &RemoteRun{URL: pick(), Team: pick(), Hits: 3}
		}
		want, wantErr := json.Marshal(&s)
		got, err := s.AppendJSON([]byte("prefix"))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("summary %+v: error %v, json.Marshal's %v", s, err, wantErr)
		}
		if err == nil && string(got) != "prefix"+string(want) {
			t.Fatalf("summary %+v:\n got %s\nwant prefix%s", s, got, want)
		}
		e := Event{Type: EventRunFinished, Time: times[r.IntN(2)], RunID: pick(), Summary: &s, Error: pick()}
		want, wantErr = json.Marshal(&e)
		got, err = e.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) || err == nil && string(got) != string(want) {
			t.Fatalf("a run's end with summary %+v:\n got %s, %v\nwant %s, %v", s, got, err, want, wantErr)
		}
	}
}
