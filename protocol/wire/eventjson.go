package wire

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends e as json.Marshal encodes it, without reflection for
// the events a run makes by the thousand (a task started, a task
// finished): a run of 1,000 cache hits makes 2,000 of them for vxd's feed,
// and json.Marshal was most of their cost; a run's end, whose summary has
// a row a task, likewise (RunSummary.AppendJSON). An event with a time
// json.Marshal would refuse (a year outside 0–9999, a zone 24 hours or
// more from UTC) goes through json.Marshal.
func (e *Event) AppendJSON(b []byte) ([]byte, error) {
	if !plainTime(e.Time) {
		return appendMarshalled(b, *e)
	}
	start := len(b)
	b = append(b, `{"type":`...)
	b = AppendJSONString(b, e.Type)
	b = appendTime(append(b, `,"time":`...), e.Time)
	b = appendField(b, "runId", e.RunID)
	b = appendField(b, "command", e.Command)
	if e.Tasks != 0 {
		b = strconv.AppendInt(append(b, `,"tasks":`...), int64(e.Tasks), 10)
	}
	b = appendField(b, "taskId", e.TaskID)
	b = appendField(b, "status", e.Status)
	b = appendField(b, "cache", e.Cache)
	if e.DurationMs != 0 {
		b = strconv.AppendInt(append(b, `,"durationMs":`...), e.DurationMs, 10)
	}
	if len(e.DependsOn) > 0 {
		b = appendStrings(append(b, `,"dependsOn":`...), e.DependsOn)
	}
	if e.Summary != nil {
		var err error
		if b, err = e.Summary.AppendJSON(append(b, `,"summary":`...)); err != nil {
			return b[:start], err
		}
	}
	b = appendField(b, "error", e.Error)
	b = appendField(b, "session", e.Session)
	return append(b, '}'), nil
}

// plainTime reports whether json.Marshal encodes t as appendTime does: a
// year within 0–9999 and a zone less than 24 hours from UTC (it refuses
// any other).
func plainTime(t time.Time) bool {
	_, off := t.Zone()
	return t.Year() >= 0 && t.Year() <= 9999 && off/3600 < 24 && off/3600 > -24
}

// appendTime appends t quoted in RFC 3339 with nanoseconds, as
// time.Time's MarshalJSON does for a plainTime.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendMarshalled appends json.Marshal's encoding of a copy of an event:
// handing json.Marshal e itself would move every caller's event to the
// heap (the runner's 20,000 a run of 10,000 hits), where this moves only
// the copy, and only for the events that come here.
func appendMarshalled(b []byte, e Event) ([]byte, error) {
	out, err := json.Marshal(&e)
	return append(b, out...), err
}

// appendField appends ,"name":"value" unless value is empty (omitempty).
func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(append(append(b, ',', '"'), name...), '"', ':')
	return AppendJSONString(b, value)
}

// AppendJSONString appends s quoted as encoding/json quotes it: verbatim
// when every byte is printable ASCII it leaves alone; printable ASCII
// with quotes, backslashes or the HTML characters (a command's "&&" and
// ">") escaped here as it escapes them; anything else by json.Marshal
// (control characters, invalid UTF-8, U+2028 and U+2029). The task key's
// encoding uses it too: a no-op run of 1,000 packages whose commands hold
// "&&" spent 4 ms of CPU in json.Marshal for them.
func AppendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= utf8.RuneSelf:
			q, _ := json.Marshal(s)
			return append(b, q...)
		case c == '"' || c == '\\' || c == '<' || c == '>' || c == '&':
			plain = false
		}
	}
	b = append(b, '"')
	if plain {
		b = append(b, s...)
		return append(b, '"')
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '<':
			b = append(b, `\u003c`...)
		case '>':
			b = append(b, `\u003e`...)
		case '&':
			b = append(b, `\u0026`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
