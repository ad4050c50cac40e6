package ops

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/opkit"
)

// TestRunHistoryScope: a project or task neither the configuration nor the
// history knows is refused with close names; one only the history knows
// (since removed from the configuration) is answered with a note.
func TestRunHistoryScope(t *testing.T) {
	ctx := context.Background()
	e := testEnv(t)
	defer e.Close()
	h, err := history.Open(ctx, history.Path(e.Root), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &history.Run{Command: "vx run build", StartedAt: time.Now()}
	if err := h.BeginRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := h.RecordExecutions(ctx, []history.Execution{
		{RunID: r.ID, TaskID: "gone#build", Key: "k", Status: history.StatusPassed, Cache: history.CacheMiss, StartedAt: time.Now()},
		{RunID: r.ID, TaskID: "a#lint", Key: "k2", Status: history.StatusPassed, Cache: history.CacheMiss, StartedAt: time.Now()},
	}); err != nil {
		t.Fatal(err)
	}
	h.Close()

	for _, tc := range []struct {
		in   RunHistoryInput
		arg  string
		want string
	}{
		{RunHistoryInput{Project: "aa"}, "project", `no project named "aa"`},
		{RunHistoryInput{Task: "biuld"}, "task", "did you mean build"},
		{RunHistoryInput{Project: "b", Task: "lint"}, "task", `no task named "lint" in project b`},
	} {
		_, err := RunHistory(ctx, e, tc.in)
		var ae *opkit.Refusal
		if !errors.As(err, &ae) || ae.Arg != tc.arg || !strings.Contains(ae.Msg, tc.want) {
			t.Errorf("RunHistory(%+v) = %v; want a refusal of %s saying %q", tc.in, err, tc.arg, tc.want)
		}
	}
	for _, in := range []RunHistoryInput{{Project: "gone"}, {Task: "lint"}, {Project: "a", Task: "lint"}} {
		out, err := RunHistory(ctx, e, in)
		if err != nil {
			t.Errorf("RunHistory(%+v): %v; want its recorded executions", in, err)
			continue
		}
		if len(out.Recent) != 1 || !strings.Contains(out.Note, "no longer in the configuration") {
			t.Errorf("RunHistory(%+v): %d rows, note %q; want 1 row and a note", in, len(out.Recent), out.Note)
		}
	}
}
