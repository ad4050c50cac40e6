// Package migrate is vx init's plan: it detects what a repository uses
// (package-manager workspaces, turbo.json, nx.json and project.json,
// package.json scripts) and proposes the vx configuration that replaces it,
// with a todo for everything that has no exact vx equivalent.
//
// PlanInit only reads; Apply writes a plan's files atomically.
package migrate
