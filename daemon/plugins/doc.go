// Package plugins runs vx's plugins (docs/plugins.md): it resolves a
// declaration to an entry file, runs one request per bounded process,
// decodes the answers strictly, and keeps the answers in .vx/plugins so
// that a load with nothing changed starts no plugin. It knows nothing of
// the workspace model: package workspace turns its answers into tasks.
package plugins
