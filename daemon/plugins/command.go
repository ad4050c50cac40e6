package plugins

import (
	"context"
	"encoding/json"

	"github.com/vzn/vx/protocol/plugin"
)

// Command runs a plugin's verb: req's stage is set to command, the answer
// decoded strictly and its output masked.
func (r Runner) Command(ctx context.Context, d Decl, e Entry, req plugin.Request) (*plugin.CommandAnswer, error) {
	req.Stage = plugin.StageCommand
	b, stderr, err := r.Call(ctx, d, e, req)
	if err != nil {
		return nil, err
	}
	var a plugin.CommandAnswer
	if err := r.decodeAnswer(b, &a); err != nil {
		return nil, &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask("command " + req.Command + ": " + err.Error()), Stderr: stderr}
	}
	a.Output = r.mask(a.Output)
	if len(a.Result) > 0 {
		a.Result = r.maskJSON(a.Result)
	}
	return &a, nil
}

// maskJSON masks v on its decoded strings (a secret spelt with escapes
// too); when masking broke the JSON (a secret spelt as a number), v is
// answered as its masked text, a JSON string.
func (r Runner) maskJSON(v json.RawMessage) json.RawMessage {
	masked := r.Masker.JSON(v)
	if !json.Valid(masked) {
		b, _ := json.Marshal(string(masked))
		masked = b
	}
	return json.RawMessage(masked)
}
