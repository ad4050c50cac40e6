package vx

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/opkit"
)

// TestBindingFillsTheInput: each bound verb's command line fills the
// operation's input as the MCP tool's arguments would.
func TestBindingFillsTheInput(t *testing.T) {
	run := opkit.RunID("01H")
	tests := []struct {
		name string
		b    *cmdline.Binding
		argv []string
		in   any // a pointer to a zero input, filled
		want any
	}{
		{"why", whyBinding, []string{"web#build", "--run", "01H"}, &ops.WhyInput{}, &ops.WhyInput{TaskID: "web#build", RunID: &run}},
		{"why without --run", whyBinding, []string{"web#build"}, &ops.WhyInput{}, &ops.WhyInput{TaskID: "web#build"}},
		{"show", showBinding, []string{"web", "--filter", "a", "--filter=tag:ui", "--affected=main"}, &ops.ShowInput{},
			&ops.ShowInput{Target: "web", Filters: ops.Filter{"a", "tag:ui"}, Affected: ops.Affected{On: true, Ref: "main"}}},
		{"show --affected", showBinding, []string{"--affected"}, &ops.ShowInput{}, &ops.ShowInput{Affected: ops.Affected{On: true}}},
		{"last --log", lastBinding, []string{"--log", "web#test", "--run=01H"}, &ops.TaskLogInput{}, &ops.TaskLogInput{TaskID: "web#test", RunID: &run}},
		{"last --list", lastBinding, []string{"--limit", "7"}, &ops.RunsInput{}, &ops.RunsInput{Limit: opkit.LimitOf(7)}},
		{"last", lastBinding, nil, &ops.RunInput{}, &ops.RunInput{}},
		{"prune deletes unless --dry-run", pruneBinding, []string{"--max-size", "2GiB"}, &ops.PruneInput{}, &ops.PruneInput{MaxSize: "2GiB", DryRun: new(false)}},
		{"prune --dry-run", pruneBinding, []string{"--dry-run", "--older-than=7d"}, &ops.PruneInput{}, &ops.PruneInput{OlderThan: "7d", DryRun: new(true)}},
		{"docs", docsBinding, []string{"cache", "key", "--limit=3"}, &ops.SearchDocsInput{}, &ops.SearchDocsInput{Query: "cache key", Limit: opkit.LimitOf(3)}},
		{"init --force", initBinding, []string{"--force"}, &ops.InitInput{}, &ops.InitInput{Mode: ops.InitForce}},
		{"init", initBinding, nil, &ops.InitInput{}, &ops.InitInput{}},
		{"info", infoBinding, []string{"--concurrency", "3"}, &ops.InfoInput{}, &ops.InfoInput{Concurrency: 3}},
		{"run", runBinding, []string{"build", "--filter", "a", "--affected=main", "--dry", "--concurrency", "2", "test", "--ui=stream"}, &runFlags{},
			&runFlags{Tasks: []string{"build", "test"}, Filter: []string{"a"}, Affected: cmdline.Maybe{Given: true, Value: "main"},
				Dry: cmdline.Maybe{Given: true}, Concurrency: new("2"), UI: new("stream")}},
		{"run with nothing", runBinding, nil, &runFlags{}, &runFlags{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseBound(tc.b, tc.argv)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.b.Fill(a, tc.in); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.in, tc.want) {
				t.Errorf("filled %+v, want %+v", tc.in, tc.want)
			}
		})
	}
}

// TestBindingNamesFlags: usage lists the bound flags, a bad value is a
// usage error naming the flag, and an operation's refusal of an argument
// names it as the command line spells it.
func TestBindingNamesFlags(t *testing.T) {
	a, err := parseBound(lastBinding, nil)
	if err != nil {
		t.Fatal(err)
	}
	usage := a.Usage("last")
	for _, want := range []string{"--run ID", "--log TASK", "--limit N", "--format text|json"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage lacks %q:\n%s", want, usage)
		}
	}
	isUsage := func(err error) bool {
		return err != nil && reflect.TypeOf(err) == reflect.TypeOf(cmdline.UsageError(""))
	}
	a, _ = parseBound(lastBinding, []string{"--limit", "lots"})
	if err := lastBinding.Fill(a, &ops.RunsInput{}); !isUsage(err) || !strings.Contains(err.Error(), "--limit") {
		t.Errorf("--limit lots: %v; want a usage error naming --limit", err)
	}
	for _, tc := range []struct {
		b    *cmdline.Binding
		arg  string
		want string
	}{
		{whyBinding, "runId", "--run: "},
		{whyBinding, "taskId", "task: "},
		{lastBinding, "taskId", "--log: "},
		{pruneBinding, "olderThan", "--older-than: "},
		{docsBinding, "query", "query: "},
		{showBinding, "target", "target: "},
		{showBinding, "scope.project", "scope.project: "},
	} {
		err := refusal(tc.b, &opkit.Refusal{Arg: tc.arg, Msg: "bad"})
		if !isUsage(err) || err.Error() != tc.want+"bad" {
			t.Errorf("refusing %s: %q, want a usage error %q", tc.arg, err, tc.want+"bad")
		}
	}
}

// parseBound parses argv against b's flags as the verbs' preamble does
// (cmdline.Command adds --format to a verb that answers).
func parseBound(b *cmdline.Binding, argv []string) (*cmdline.Args, error) {
	a, _, _, err := cmdline.Command(&cmdline.IO{Out: io.Discard, Err: io.Discard}, cmdline.Verb{Name: "test", Bind: b, Answers: true}, argv)
	return a, err
}
