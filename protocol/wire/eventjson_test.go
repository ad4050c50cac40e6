package wire

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// AppendJSON gives json.Marshal's bytes for every event.
func TestEventAppendJSONIsMarshal(t *testing.T) {
	strs := []string{"", "a", "web#build", "say \"hi\"", `back\slash`, "<b>&amp;</b>", "tab\there", "nl\n", "é ü 世界", "\u2028\u2029",
		"bad \xff utf8", "\x00\x1f", "~!@#$%^*()_+{}|:?", "packages/pkg-0001#build"}
	times := []time.Time{{}, time.Date(2026, 12, 1, 14, 5, 45, 237753875, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 5*3600+1800)),
		time.Unix(0, 1).In(time.FixedZone("y", -7*3600)), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return strs[r.IntN(len(strs))] }
	for i := 0; i < 3000; i++ {
		e := Event{Type: pick(), Time: times[r.IntN(len(times))], RunID: pick(), Command: pick(), Tasks: r.IntN(3) - 1, TaskID: pick(),
			Status: pick(), Cache: pick(), DurationMs: int64(r.IntN(3) - 1), Error: pick(), Session: pick()}
		switch r.IntN(3) {
		case 1:
			e.DependsOn = []string{}
		case 2:
			e.DependsOn = []string{pick(), pick()}
		}
		if r.IntN(10) == 0 {
			e.Summary = &RunSummary{RunID: pick()}
		}
		want, wantErr := json.Marshal(&e)
		got, err := e.AppendJSON([]byte("prefix"))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("event %+v: error %v, json.Marshal's %v", e, err, wantErr)
		}
		if err == nil && string(got) != "prefix"+string(want) {
			t.Fatalf("event %+v:\n got %s\nwant prefix%s", e, got, want)
		}
	}
}
