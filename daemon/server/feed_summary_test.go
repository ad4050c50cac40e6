package server

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// A shell run's end is published with its summary to a subscriber, and
// without decoding it when none listens: the summary of a run of 10,000
// tasks was most of what vxd spent on a run it only tails.
func TestRunSummaryDecodedOnlyForSubscribers(t *testing.T) {
	sum := &wire.RunSummary{RunID: "r1", Command: "vx run build", OK: true, Status: "passed",
		Tasks: []wire.TaskRow{{TaskID: "a#build", Status: wire.StatusPassed, Cache: wire.CacheHit}}}
	line, err := (&wire.Event{Type: wire.EventRunFinished, Time: time.Now().UTC(), RunID: "r1", Summary: sum}).AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var want wire.Event
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatal(err)
	}

	e, fill, ok := decodeFeedLine(line)
	if !ok || fill == nil || e.Summary != nil || e.Type != wire.EventRunFinished || e.RunID != "r1" {
		t.Fatalf("decodeFeedLine: %+v, fill %v, %v; want the run's end without its summary, and a fill", e, fill != nil, ok)
	}
	filled := 0
	count := func(e *wire.Event) { filled++; fill(e) }

	f := newLiveFeed()
	f.publish(e, count, nil)
	if filled != 0 {
		t.Errorf("with no subscriber the summary was decoded %d times", filled)
	}
	ch, cancel := f.Subscribe()
	defer cancel()
	f.publish(e, count, nil)
	got := <-ch
	if filled != 1 || !reflect.DeepEqual(got, want) {
		t.Errorf("a subscriber got %+v (summary decoded %d times); want %+v", got, filled, want)
	}

	// A line without a summary, or a task's, decodes as before.
	for _, ev := range []wire.Event{{Type: wire.EventRunFinished, RunID: "r2"}, {Type: wire.EventTaskFinished, RunID: "r2", TaskID: "a#build"}} {
		ev.Time = time.Now().UTC()
		b, _ := ev.AppendJSON(nil)
		e, fill, ok := decodeFeedLine(b)
		if fill != nil {
			fill(&e)
		}
		if !ok || !reflect.DeepEqual(e, ev) {
			t.Errorf("%s: %+v, %v; want %+v", b, e, ok, ev)
		}
	}
}
