package wire

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// DecodeLine reads every line AppendJSON writes as json.Unmarshal does,
// by hand where the line is plain and through encoding/json where it is
// not (escapes, non-ASCII, a summary, names in another case, damage).
func TestDecodeLineIsUnmarshal(t *testing.T) {
	when := time.Date(2026, 12, 6, 8, 30, 1, 123456789, time.UTC)
	events := []Event{
		{Type: EventTaskStarted, Time: when, RunID: "r1", TaskID: "a#build", DependsOn: []string{"b#build", "c#build"}},
		{Type: EventTaskFinished, Time: when, RunID: "r1", TaskID: "a#build", Status: StatusPassed, Cache: CacheHit, DurationMs: 12},
		{Type: EventRunStarted, Time: when.In(time.FixedZone("x", 3600)), RunID: "r1", Command: "vx run build && echo <done>", Tasks: 10000},
		{Type: EventTaskFinished, Time: when, TaskID: "ünï#build", Status: StatusFailed, Cache: CacheMiss, Error: "exit \"3\"\n"},
		{Type: EventRunFinished, Time: when, RunID: "r1", Summary: &RunSummary{RunID: "r1", OK: true}},
		{Type: EventSessionOpened, Time: when, Session: "s1", DurationMs: -5},
	}
	var lines [][]byte
	for _, e := range events {
		b, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	lines = append(lines,
		[]byte(`{"type":"task.started","time":"2026-12-06T08:30:01Z","RunID":"r2"}`),
		[]byte(`{"type":"task.started","time":"2026-12-06T08:30:01Z","dependsOn":[]}`),
		[]byte(`{"type":"task.started","time":"2026-12-06T08:30:01Z","tasks":007}`),
		[]byte(`{"type":"task.started","time":"yesterday"}`),
		[]byte(`{"type":"task.started","time":"2026-12-06T08:30:01Z"`),
		[]byte(`{"type":"task.started","time":"2026-12-06T08:30:01Z"} `),
		[]byte(`{"type":"task.started","time":"2026-12-06T08:30:01Z","unknown":1}`),
	)
	for _, line := range lines {
		var want, got Event
		wantErr := json.Unmarshal(line, &want)
		gotErr := got.DecodeLine(line)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: DecodeLine error %v, json.Unmarshal %v", line, gotErr, wantErr)
			continue
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nDecodeLine     %+v\njson.Unmarshal %+v", line, got, want)
		}
	}
}

// A plain task line is read without encoding/json: a few allocations
// (the time, the ids), where encoding/json makes a dozen and more.
func TestDecodeLineReadsTaskLinesByHand(t *testing.T) {
	e := Event{Type: EventTaskFinished, Time: time.Now().UTC(), RunID: "0123456789ab", TaskID: "pkg-0001#build", Status: StatusPassed, Cache: CacheHit, DurationMs: 3}
	line, err := e.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got Event
	allocs := testing.AllocsPerRun(100, func() {
		if err := got.DecodeLine(line); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 3 {
		t.Errorf("DecodeLine of a task line made %.0f allocations; want at most 3 (the run and task ids, the time's text)", allocs)
	}
}
