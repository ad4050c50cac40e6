package records

import (
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var w Writer
	w.Uint(300)
	w.Int(-5)
	w.Str("héllo")
	w.Bool(true)
	w.Strs([]string{"a", "", "b"})
	w.Strs(nil)
	r := Reader{S: w.B.String()}
	got := []any{r.Uint(), r.Int(), r.Str(), r.Bool(), r.Strs(10), r.Strs(10)}
	want := []any{uint64(300), int64(-5), "héllo", true, []string{"a", "", "b"}, []string(nil)}
	if !reflect.DeepEqual(got, want) || r.Bad || r.S != "" {
		t.Fatalf("read %#v (bad %v, left %q), want %#v", got, r.Bad, r.S, want)
	}
}

// Every cut of a record reads as malformed or as fewer values, never
// panics, and a failure sticks.
func TestDamageSticks(t *testing.T) {
	var w Writer
	w.Str("abcdef")
	w.Strs([]string{"x", "y"})
	w.Bool(false)
	raw := w.B.String()
	for i := 0; i < len(raw); i++ {
		r := Reader{S: raw[:i]}
		r.Str()
		r.Strs(10)
		r.Bool()
		if !r.Bad {
			t.Fatalf("a record cut at %d bytes read whole", i)
		}
		if r.Uint() != 0 || r.Str() != "" || r.S != "" {
			t.Fatal("a failed reader answered a value")
		}
	}
	r := Reader{S: "\x02"} // a bool of 2
	if r.Bool() || !r.Bad {
		t.Fatal("a bool of 2 read as a bool")
	}
	r = Reader{S: "\x05ab"} // a count past what is left
	if r.Count(100) != 0 || !r.Bad {
		t.Fatal("a count past the record's end was taken")
	}
}
