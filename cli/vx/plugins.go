package vx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/opkit"
)

// pluginText is one plugin's line of vx info.
func pluginText(p ops.InfoPlugin) string {
	name := p.Plugin
	if p.Name != "" {
		name = fmt.Sprintf("%s %s (%s)", p.Name, p.Version, p.Plugin)
	}
	stages := strings.Join(p.Stages, "+")
	if stages == "" {
		stages = "none" // its describe failed
	}
	s := fmt.Sprintf("%s: stages %s, %d task(s) from %d file(s)", name, stages, p.Tasks, p.Files)
	if len(p.Commands) > 0 {
		s += ", commands " + strings.Join(p.Commands, ", ")
	}
	if len(p.Include) > 0 {
		s += "; include " + strings.Join(p.Include, " ")
	}
	if len(p.Exclude) > 0 {
		s += "; exclude " + strings.Join(p.Exclude, " ")
	}
	if p.Stale {
		s += "; serving its last good answer"
	}
	if p.Error != "" {
		s += "; error: " + strings.ReplaceAll(p.Error, "\n", " | ")
	}
	return s
}

// pluginCommands are the verbs the workspace's plugins add, for vx help's
// "Plugin commands" and for running them; none outside a workspace or
// when it does not load.
func pluginCommands(s *cmdline.IO) (string, []cmdline.Subcommand) {
	const heading = "Plugin commands"
	root, err := workspace.FindRoot(s.WorkingDir())
	if err != nil {
		return heading, nil
	}
	m, err := workspace.LoadReusing(root)
	if err != nil {
		return heading, nil
	}
	// Asked for vx help or a verb vx does not have: a plugin that failed
	// would have added verbs, so its failure is said.
	for _, w := range m.PluginWarnings() {
		fmt.Fprintf(s.Err, "vx: warning: %s\n", w)
	}
	var out []cmdline.Subcommand
	for _, p := range m.Plugins() {
		for _, c := range p.Commands {
			// One line in vx help, however the plugin spaced its summary.
			summary := strings.Join(strings.Fields(c.Summary), " ")
			out = append(out, cmdline.Subcommand{Name: c.Name, Summary: summary + " (plugin " + p.Name + ")", Run: pluginVerb(m, c.Name)})
		}
	}
	return heading, out
}

// pluginVerb runs a plugin's verb through the runPluginCommand operation
// with the arguments after it, printing its output; its exit code is vx's.
// A refusal of the command line exits 2; a plugin that ran and failed
// (crashed, timed out, answered garbage) exits 1.
func pluginVerb(m *workspace.Model, verb string) func(ctx context.Context, s *cmdline.IO, argv []string) error {
	return func(ctx context.Context, s *cmdline.IO, argv []string) error {
		e := ops.NewEnv(m.Root, m, nil, s.Environment())
		defer e.Close()
		args, asJSON := pluginArgs(argv)
		v, err := ops.PluginCommandOperation().Call(ctx, e, &ops.PluginCommandInput{Command: verb, Args: args})
		if err != nil {
			msg := e.Masker.String(err.Error())
			if errors.As(err, new(*opkit.Refusal)) {
				return cmdline.UsageError(msg)
			}
			return errors.New(msg)
		}
		out := v.(*ops.PluginCommandOutput)
		if asJSON {
			enc := json.NewEncoder(s.Out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				return err
			}
		} else {
			fmt.Fprint(s.Out, out.Output)
		}
		if out.ExitCode != 0 {
			return cmdline.ExitCode(out.ExitCode)
		}
		return nil
	}
}

// pluginArgs splits a plugin verb's command line into the plugin's
// arguments and vx's own --format json (or --format=json): that flag is
// vx's when it ends the arguments before the first "--" (or all of them,
// without one), and prints the verb's whole answer as JSON, as its MCP
// tool answers it. "--" ends vx's flags, as for every verb: everything
// after it is the plugin's, and the "--" itself is not passed.
func pluginArgs(argv []string) (args ops.PluginArgs, asJSON bool) {
	before, after := argv, []string(nil)
	if i := slices.Index(argv, "--"); i >= 0 {
		before, after = argv[:i], argv[i+1:]
	}
	n := len(before)
	switch {
	case n >= 2 && before[n-2] == "--format" && before[n-1] == "json":
		before, asJSON = before[:n-2], true
	case n >= 1 && before[n-1] == "--format=json":
		before, asJSON = before[:n-1], true
	}
	return append(slices.Clip(before), after...), asJSON
}
