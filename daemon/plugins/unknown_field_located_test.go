package plugins

import (
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/plugin"
)

// TestUnknownFieldNamesItsTask: a tasks answer refused for a field vx
// does not know (or a value of the wrong type) says which task holds it,
// so a plugin answering hundreds of tasks can be corrected without a
// search; a task whose project or name is itself unreadable is named by
// its place alone.
func TestUnknownFieldNamesItsTask(t *testing.T) {
	for _, c := range []struct{ answer, want string }{
		{`{"protocol": 1, "tasks": [{"project": "a", "name": "ok", "file": "f"}, {"project": "a", "name": "test", "file": "f", "output": ["dist/**"]}]}`,
			`tasks[1] (a#test): json: unknown field "output"`},
		{`{"protocol": 1, "tasks": [{"project": 3, "name": "x", "file": "f", "cach": true}]}`,
			`tasks[0]: json: cannot unmarshal number`},
		{`{"protocol": 1, "taks": []}`,
			`its answer does not fit the protocol: json: unknown field "taks"`},
	} {
		var a plugin.TasksAnswer
		err := Runner{}.decodeAnswer([]byte(c.answer), &a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.answer, err, c.want)
		}
	}
}
