package wire

import (
	"encoding/json"
	"testing"
	"time"
)

// json.Marshal refuses a time whose zone offset is 24 hours or more (not
// RFC 3339); AppendJSON must refuse it too rather than write a line
// json.Marshal would never have written.
func TestAppendJSONZoneOutOfRange(t *testing.T) {
	for _, off := range []int{24 * 3600, -24 * 3600, 25*3600 + 60, 99 * 3600} {
		e := Event{Type: "taskStarted", Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("z", off))}
		want, wantErr := json.Marshal(&e)
		got, err := e.AppendJSON(nil)
		if (err != nil) != (wantErr != nil) || (err == nil && string(got) != string(want)) {
			t.Errorf("offset %ds: AppendJSON = %q, %v; json.Marshal = %q, %v", off, got, err, want, wantErr)
		}
	}
}

// Every zone offset (whole hours, minutes, seconds, both signs, up to and
// past the range RFC 3339 allows) encodes as json.Marshal does.
func TestAppendJSONZones(t *testing.T) {
	for off := -30 * 3600; off <= 30*3600; off += 599 {
		for _, tm := range []time.Time{
			time.Date(2026, 1, 1, 0, 0, 0, 5, time.FixedZone("z", off)),
			time.Date(0, 1, 1, 0, 0, 0, 0, time.FixedZone("", off)),
			time.Date(9999, 12, 31, 23, 59, 59, 0, time.FixedZone("", off)),
		} {
			e := Event{Type: "t", Time: tm}
			want, wantErr := json.Marshal(&e)
			got, err := e.AppendJSON(nil)
			if (err != nil) != (wantErr != nil) || (err == nil && string(got) != string(want)) {
				t.Fatalf("%v: AppendJSON = %q, %v; json.Marshal = %q, %v", tm, got, err, want, wantErr)
			}
		}
	}
}
