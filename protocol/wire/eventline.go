package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// DecodeLine decodes one event as AppendJSON wrote it (vx run's event
// file, which vxd tails: a cached run of 10,000 tasks writes 20,000 lines)
// into e, as json.Unmarshal would into a zero Event. Lines of that shape,
// with strings of printable ASCII, are read by hand (a tenth of the time,
// and of the garbage, of encoding/json's reflection); any other line is
// given to encoding/json.
func (e *Event) DecodeLine(line []byte) error {
	*e = Event{}
	if (&lineReader{b: line}).event(e) {
		return nil
	}
	*e = Event{}
	return json.Unmarshal(line, e)
}

// DecodeHead is DecodeLine of everything but the line's summary, which it
// answers undecoded (nil when the line has none or a null one) for
// json.Unmarshal into a *RunSummary when someone needs it: the end of a
// run of 10,000 tasks carries 10,000 task rows (2 MB), which a reader that
// only follows the run never looks at. The summary's object is skipped by
// its brackets and quotes, not checked: a summary that is not valid JSON
// fails in that later json.Unmarshal, not here.
func (e *Event) DecodeHead(line []byte) (summary []byte, err error) {
	*e = Event{}
	r := lineReader{b: line, head: true}
	if r.event(e) {
		return r.summary, nil
	}
	var head struct {
		Event
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		*e = Event{}
		return nil, err
	}
	switch {
	case len(head.Summary) == 0 || string(head.Summary) == "null":
		head.Summary = nil
	case head.Summary[0] != '{':
		*e = Event{}
		return nil, fmt.Errorf("an event's summary is not an object: %.40s", head.Summary)
	}
	*e = head.Event
	return head.Summary, nil
}

// lineReader reads an event line from b; a false answer from any of its
// reads means the line is not of AppendJSON's plain shape. With head set
// it reads a summary's object undecoded into summary (DecodeHead).
type lineReader struct {
	b       []byte
	head    bool
	summary []byte
}

// event reads the whole line into e.
func (r *lineReader) event(e *Event) bool {
	if !r.lit(`{"type":`) {
		return false
	}
	typ, ok := r.str()
	if !ok || !r.lit(`,"time":`) {
		return false
	}
	e.Type = intern(typ)
	when, ok := r.str()
	if !ok {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, string(when))
	if err != nil {
		return false
	}
	e.Time = t
	for !r.lit("}") {
		if !r.lit(",") || !r.field(e) {
			return false
		}
	}
	return len(r.b) == 0
}

// field reads one "name":value pair into e.
func (r *lineReader) field(e *Event) bool {
	name, ok := r.str()
	if !ok || !r.lit(":") {
		return false
	}
	var dst *string
	switch string(name) {
	case "runId":
		dst = &e.RunID
	case "command":
		dst = &e.Command
	case "taskId":
		dst = &e.TaskID
	case "status":
		dst = &e.Status
	case "cache":
		dst = &e.Cache
	case "error":
		dst = &e.Error
	case "session":
		dst = &e.Session
	case "tasks":
		n, ok := r.int()
		e.Tasks = int(n)
		return ok && int64(e.Tasks) == n
	case "durationMs":
		n, ok := r.int()
		e.DurationMs = n
		return ok
	case "dependsOn":
		return r.strs(&e.DependsOn)
	case "summary":
		return r.head && r.object()
	default:
		return false
	}
	s, ok := r.str()
	*dst = intern(s)
	return ok
}

// object consumes a summary: null, or an object whose bytes it keeps in
// r.summary without decoding them; its strings are skipped by their
// quotes (a backslash escapes the byte after it), its nesting by counting
// brackets.
func (r *lineReader) object() bool {
	if r.lit("null") {
		r.summary = nil
		return true
	}
	if len(r.b) == 0 || r.b[0] != '{' {
		return false
	}
	depth := 0
	for i := 0; i < len(r.b); i++ {
		switch r.b[i] {
		case '"':
			for i++; i < len(r.b) && r.b[i] != '"'; i++ {
				if r.b[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				r.summary, r.b = r.b[:i+1], r.b[i+1:]
				return true
			}
		}
	}
	return false
}

// lit consumes s.
func (r *lineReader) lit(s string) bool {
	if len(r.b) < len(s) || string(r.b[:len(s)]) != s {
		return false
	}
	r.b = r.b[len(s):]
	return true
}

// str reads a quoted string of printable ASCII without escapes.
func (r *lineReader) str() ([]byte, bool) {
	if len(r.b) == 0 || r.b[0] != '"' {
		return nil, false
	}
	for i := 1; i < len(r.b); i++ {
		switch c := r.b[i]; {
		case c == '"':
			s := r.b[1:i]
			r.b = r.b[i+1:]
			return s, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// int reads a decimal integer as JSON spells one (no leading zero).
func (r *lineReader) int() (int64, bool) {
	i := 0
	if i < len(r.b) && r.b[i] == '-' {
		i++
	}
	first := i
	for i < len(r.b) && r.b[i] >= '0' && r.b[i] <= '9' {
		i++
	}
	if i-first > 1 && r.b[first] == '0' {
		return 0, false
	}
	n, err := strconv.ParseInt(string(r.b[:i]), 10, 64)
	r.b = r.b[i:]
	return n, err == nil
}

// strs reads an array of strings.
func (r *lineReader) strs(dst *[]string) bool {
	if !r.lit("[") {
		return false
	}
	out := []string{}
	for !r.lit("]") {
		if len(out) > 0 && !r.lit(",") {
			return false
		}
		s, ok := r.str()
		if !ok {
			return false
		}
		out = append(out, string(s))
	}
	*dst = out
	return true
}

// intern answers the constant for an event's type, status or cache
// outcome (no string of its own for each of 20,000 events); a copy of s
// otherwise.
func intern(s []byte) string {
	switch string(s) {
	case EventTaskStarted:
		return EventTaskStarted
	case EventTaskFinished:
		return EventTaskFinished
	case StatusPassed:
		return StatusPassed
	case CacheHit:
		return CacheHit
	case CacheMiss:
		return CacheMiss
	}
	return string(s)
}
