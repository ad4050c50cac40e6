// Package workspace loads a vx workspace: vx.workspace.json, the projects
// it names (or package.json workspaces / pnpm-workspace.yaml), their
// package.json manifests and vx.project.json files, and builds the task
// graph a run follows.
package workspace
