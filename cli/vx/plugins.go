package vx

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vzn/vx/cli/cmdline"
	"github.com/vzn/vx/daemon/ops"
	"github.com/vzn/vx/daemon/workspace"
)

// pluginText is one plugin's line of vx info.
func pluginText(p ops.InfoPlugin) string {
	name := p.Plugin
	if p.Name != "" {
		name = fmt.Sprintf("%s %s (%s)", p.Name, p.Version, p.Plugin)
	}
	s := fmt.Sprintf("%s: stages %s, %d task(s) from %d file(s)", name, strings.Join(p.Stages, "+"), p.Tasks, p.Files)
	if len(p.Commands) > 0 {
		s += ", commands " + strings.Join(p.Commands, ", ")
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
	var out []cmdline.Subcommand
	for _, p := range m.Plugins() {
		for _, c := range p.Commands {
			out = append(out, cmdline.Subcommand{Name: c.Name, Summary: c.Summary + " (plugin " + p.Name + ")", Run: pluginVerb(m, c.Name)})
		}
	}
	return heading, out
}

// pluginVerb runs a plugin's verb through the runPluginCommand operation
// with the arguments after it, printing its output; its exit code is vx's.
func pluginVerb(m *workspace.Model, verb string) func(ctx context.Context, s *cmdline.IO, argv []string) error {
	return func(ctx context.Context, s *cmdline.IO, argv []string) error {
		e := ops.NewEnv(m.Root, m, nil, s.Environment())
		defer e.Close()
		argv, asJSON := formatJSON(argv)
		v, err := ops.PluginCommandOperation().Call(ctx, e, &ops.PluginCommandInput{Command: verb, Args: argv})
		if err != nil {
			return cmdline.UsageError(e.Masker.String(err.Error()))
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

// formatJSON takes vx's own --format json (or --format=json) off the end
// of a plugin verb's arguments: with it, vx prints the verb's whole
// answer as JSON, as the verb's MCP tool answers it.
func formatJSON(argv []string) ([]string, bool) {
	n := len(argv)
	switch {
	case n >= 2 && argv[n-2] == "--format" && argv[n-1] == "json":
		return argv[:n-2], true
	case n >= 1 && argv[n-1] == "--format=json":
		return argv[:n-1], true
	}
	return argv, false
}
