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

// DecodeHead reads every line as json.Unmarshal does, except the summary,
// which it answers as bytes that json.Unmarshal turns into the summary
// json.Unmarshal of the whole line gives: braces, brackets, quotes and
// backslashes inside the summary's strings do not end it early, and the
// fields after it are read too.
func TestDecodeHeadIsUnmarshalWithoutTheSummary(t *testing.T) {
	when := time.Date(2026, 12, 6, 8, 30, 1, 123456789, time.UTC)
	code := 3
	tricky := &RunSummary{RunID: "r1", Command: `vx run "}]{[" \ \" \\`, Status: StatusFailed, StartedAt: when, Warnings: []string{"}", "{", `\`, "\"", "é\n"},
		Tasks: []TaskRow{{TaskID: "a#build", Status: StatusFailed, ExitCode: &code, BlockedBy: []string{"b]}"}}, {TaskID: "b#build", CPUParallelism: 1.5}}}
	events := []Event{
		{Type: EventRunFinished, Time: when, RunID: "r1", Summary: tricky},
		{Type: EventRunFinished, Time: when, RunID: "r1", Summary: tricky, Error: "after } the summary", Session: "s1"},
		{Type: EventRunFinished, Time: when, RunID: "r1", Summary: &RunSummary{}},
		{Type: EventRunFinished, Time: when, RunID: "r1"},
		{Type: EventRunFinished, Time: when, Command: "with \"quotes\"", Summary: tricky},
		{Type: EventTaskFinished, Time: when, RunID: "r1", TaskID: "a#build", Status: StatusPassed, Cache: CacheHit, DurationMs: 12},
	}
	var lines [][]byte
	for _, e := range events {
		b, err := json.Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, b)
	}
	lines = append(lines,
		[]byte(`{"type":"run.finished","time":"2026-12-06T08:30:01Z","summary":null}`),
		[]byte(`{"type":"run.finished","time":"2026-12-06T08:30:01Z","summary":{"runId":"r1"}`),
		[]byte(`{"type":"run.finished","time":"2026-12-06T08:30:01Z","summary":{"runId":"r1\"}}`),
		[]byte(`{"type":"run.finished","time":"2026-12-06T08:30:01Z","summary":{"runId":"r1"}}x`),
		[]byte(`{"type":"run.finished","time":"2026-12-06T08:30:01Z","summary":7}`),
	)
	for _, line := range lines {
		var want, got Event
		wantErr := json.Unmarshal(line, &want)
		raw, gotErr := got.DecodeHead(line)
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: DecodeHead error %v, json.Unmarshal %v", line, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		if raw != nil {
			if err := json.Unmarshal(raw, &got.Summary); err != nil {
				t.Errorf("%s: the summary %s: %v", line, raw, err)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\nDecodeHead     %+v\njson.Unmarshal %+v", line, got, want)
		}
	}
}

// The end of a run, as the runner writes it, is read by hand: its summary
// is answered in place in the line (not copied, not scanned by
// encoding/json), with a few allocations whatever the summary's size.
func TestDecodeHeadSkipsTheSummaryByHand(t *testing.T) {
	sum := &RunSummary{RunID: "0123456789ab", Command: "vx run build", Status: StatusPassed, OK: true}
	for i := 0; i < 1000; i++ {
		code := 0
		sum.Tasks = append(sum.Tasks, TaskRow{TaskID: "pkg#build", Project: "pkg", Task: "build", Status: StatusPassed, Cache: CacheHit, ExitCode: &code, Outputs: 1})
	}
	line, err := (&Event{Type: EventRunFinished, Time: time.Now().UTC(), RunID: "0123456789ab", Summary: sum}).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var e Event
	var raw []byte
	allocs := testing.AllocsPerRun(20, func() {
		if raw, err = e.DecodeHead(line); err != nil {
			t.Fatal(err)
		}
	})
	if len(raw) == 0 || &raw[len(raw)-1] != &line[len(line)-2] {
		t.Fatalf("the summary is not answered in place: %d bytes", len(raw))
	}
	if allocs > 3 {
		t.Errorf("DecodeHead of a run's end with 1,000 rows made %.0f allocations; want at most 3", allocs)
	}
}
