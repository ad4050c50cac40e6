package opkit

import (
	"context"
	"errors"
	"testing"
)

type checkScope struct {
	Task TaskID `json:"task,omitempty"`
}

type checkInput struct {
	Need  TaskID      `json:"need"`
	Maybe TaskID      `json:"maybe,omitempty"`
	Run   *RunID      `json:"run,omitempty"`
	Scope *checkScope `json:"scope,omitempty"`
	Both  bool        `json:"both,omitempty"`
}

// Validate is a rule across arguments: both needs maybe.
func (in checkInput) Validate() error {
	if in.Both && in.Maybe == "" {
		return Refuse("both", "needs maybe")
	}
	return nil
}

type checkOutput struct{}

// TestCheckOrder: Check refuses a given argument its schema refuses
// (nested ones named by their path), a required one even when empty, and
// leaves an optional one out; the input's Validate runs after every
// argument passed. An operation made with Define never runs its function
// on an input Check refuses.
func TestCheckOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   checkInput
		arg  string // "" = accepted
	}{
		{"accepted", checkInput{Need: "web#build"}, ""},
		{"required and empty", checkInput{}, "need"},
		{"required, a half missing", checkInput{Need: "web"}, "need"},
		{"optional, blank halves", checkInput{Need: "a#b", Maybe: " # "}, "maybe"},
		{"nested", checkInput{Need: "a#b", Scope: &checkScope{Task: "#b"}}, "scope.task"},
		{"across arguments", checkInput{Need: "a#b", Both: true}, "both"},
		{"an argument before Validate", checkInput{Need: "a", Both: true}, "need"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			op := Define(Spec[checkInput, checkOutput]{Name: "check"}, func(context.Context, struct{}, checkInput) (*checkOutput, error) {
				ran = true
				return &checkOutput{}, nil
			})
			in := tc.in
			_, err := op.Call(context.Background(), struct{}{}, &in)
			var r *Refusal
			switch {
			case tc.arg == "" && (err != nil || !ran):
				t.Errorf("refused %+v: %v (ran %v)", tc.in, err, ran)
			case tc.arg != "" && (!errors.As(err, &r) || r.Arg != tc.arg):
				t.Errorf("%+v: %v; want a refusal of %s", tc.in, err, tc.arg)
			case tc.arg != "" && ran:
				t.Errorf("%+v: the function ran on a refused input", tc.in)
			}
		})
	}
}

// TestRefusalWording: one refusal reads `argument "ARG": MSG` to an agent
// and `NAME: MSG` on a command line; a refusal of the whole request is its
// message alone on both.
func TestRefusalWording(t *testing.T) {
	r := &Refusal{Arg: "olderThan", Msg: "must be a duration"}
	if got := r.Error(); got != `argument "olderThan": must be a duration` {
		t.Errorf("Error() = %q", got)
	}
	if got := r.Named("--older-than"); got != "--older-than: must be a duration" {
		t.Errorf("Named() = %q", got)
	}
	whole := &Refusal{Msg: `unknown task "deploy"`}
	if whole.Error() != whole.Msg || whole.Named("--x") != whole.Msg {
		t.Errorf("a refusal of the request reads %q / %q", whole.Error(), whole.Named("--x"))
	}
}
