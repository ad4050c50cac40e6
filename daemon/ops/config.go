package ops

import (
	"context"
	"fmt"
	"os"
)

// WorkspaceConfigInput is getWorkspaceConfig's input: it takes no
// arguments.
type WorkspaceConfigInput struct{}

// WorkspaceConfigOutput is the workspace configuration file as written.
type WorkspaceConfigOutput struct {
	File string `json:"file"` // its absolute path
	// Text is the file as written, comments and layout kept, secret
	// values masked.
	Text string `json:"text"`
}

// WorkspaceConfig answers getWorkspaceConfig, vx config and the
// vx://workspace/config resource: vx.workspace.json as written, with the
// workspace's secret values masked.
func WorkspaceConfig(ctx context.Context, e *Env, _ WorkspaceConfigInput) (*WorkspaceConfigOutput, error) {
	m, err := e.CurrentModel()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(m.ConfigPath)
	if err != nil {
		return nil, fmt.Errorf("reading the workspace configuration: %w", err)
	}
	return &WorkspaceConfigOutput{File: m.ConfigPath, Text: string(e.Masker.JSON(b))}, nil
}
