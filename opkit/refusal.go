package opkit

import "fmt"

// Refusal is the one error an operation refuses its input with, before it
// does anything: an argument given wrong (Arg names it, as its JSON name:
// "taskId", "tasks[1]", "scope.project"), or the request as a whole (Arg
// is "": an unknown task, a selection that cannot run, arguments that are
// not a JSON object). Msg says what is wrong and what is accepted, without
// naming the argument: the surfaces name it as each spells it.
//
// It is rendered here, once: Error for MCP, --format json and the
// platform's API (`argument "ARG": MSG`), Named for a command line
// (`--flag: MSG`). A verb exits 2 (usage) on it; a tool answers isError;
// a resource or prompt answers JSON-RPC invalid params.
type Refusal struct {
	Arg string
	Msg string
}

// Refuse makes a refusal of arg ("" for the request as a whole).
func Refuse(arg, format string, a ...any) error {
	return &Refusal{Arg: arg, Msg: fmt.Sprintf(format, a...)}
}

// Error is the refusal as an agent reads it: `argument "ARG": MSG`, or
// MSG alone for a refusal of the whole request.
func (r *Refusal) Error() string {
	if r.Arg == "" {
		return r.Msg
	}
	return fmt.Sprintf("argument %q: %s", r.Arg, r.Msg)
}

// Named is the refusal with its argument spelled as name (a command
// line's "--older-than" or "TASK"): `NAME: MSG`, or MSG alone for a
// refusal of the whole request.
func (r *Refusal) Named(name string) string {
	if r.Arg == "" {
		return r.Msg
	}
	return name + ": " + r.Msg
}
