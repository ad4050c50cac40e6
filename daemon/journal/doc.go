// Package journal is what vxd does for `vx run`: its change journal spares
// a run the stat of every input, and its memo lets an identical fully
// cached run repeat the last one without loading the workspace. This
// comment is the one description of the feature; docs/cache.md points here.
//
// # Where it lives
//
// This package is the run's side: the question (ChangeSource, asked once
// per run: Ask, then Answer.Source for the run's files), the state a run saves for the next one (Changes, in
// .vx/journal) and the memo of a repeatable run (Memo, in .vx/repeat). Its
// subpackage watch is vxd's side: the watch, the feed of numbered changes
// and the barrier (only vxd links it, and with it fsnotify). The adapters
// are thin: vxd's server serves watch's answer at GET wire.ChangesPath
// (daemon/server/changes.go), the client asks it (client/changes.go), vx
// run passes the client's question in (cli/vx/changes.go, daemon/ops
// Ahead), and the runner hashes through Changes and leaves or repeats the
// memo (daemon/runner/repeat.go). The answer's type is wire.Changes, what
// the journal covers wire.JournalCovers.
//
// # What vxd watches
//
// Every directory of the workspace that wire.JournalCovers (all but .vx at
// the root and anything under .git or node_modules, which listings leave
// out too), with a watch of its own (inotify on Linux), numbering every
// event. A token is an epoch (a random id) and the sequence number of the
// last event counted. vxd answers only for tokens of its current epoch,
// and only after a barrier: it creates a marker file in .vx/daemon/journal
// and waits (at most two seconds) for its event; events queue in order, so
// every change made before the question was asked has been counted.
//
// A new epoch starts, and earlier tokens prove nothing, when vxd starts,
// when its watch queue overflows or reports an error, when a watched
// directory is renamed (inotify keeps reporting its children under the
// old names), and when more than VXD_JOURNAL_LIMIT paths (default 50000)
// changed in one epoch.
//
// # Bounds, and when it refuses
//
// The watches are bounded at hashing.MaxWatchedDirs directories, the bound
// of a saved listing (a listing the journal vouches for must be saved):
// past it, or when a directory cannot be watched (Linux's
// fs.inotify.max_user_watches), the journal stops until vxd restarts, and
// vxd status and vx doctor say why. On macOS a kqueue watch holds a
// descriptor for the directory and each entry: the watches keep within
// three quarters of the open-file limit (VXD_JOURNAL_DESCRIPTORS lowers
// it), vxd's configuration watcher first, and past it the journal stops.
// A workspace entered through a symbolic link is watched as the tree the
// link names; pointing the link elsewhere stops the journal. An answer
// lists at most wire.MaxChangedPaths paths; more is "cannot prove".
//
// What the watch does not report is not proven either way: a write through
// a second hard link (no file with more than one link is taken from the
// journal, but a link made after a run is not reported), writes through a
// shared memory mapping, changes on a network file system made from
// another machine.
//
// # What a run takes from it
//
// A run asks vxd once, before it looks at any file, what changed since the
// older of the tokens its saved state and its memo hold (Ask; each
// question waits on the barrier). With
// a complete answer of the same epoch, a hash the last run saved whose
// path did not change is taken without a stat, and the saved listing
// (.vx/listing, hashing.ListFilesCached) holds without the stat of a
// directory that did not change; git's index, HEAD, configuration and
// ignore files, and everything outside the watched tree, are statted as
// always. After the keys are computed the run saves the token it asked at
// with the hash of every input it read since, and whether its listing
// held. That state is self-contained (each hash is the one read after its
// token), so concurrent runs, or runs without vxd between them, cannot
// make it wrong: the last complete save wins. A saved state that is not
// whole, is another version's or form's, or is larger than its bound is
// not read, and that run stats every file.
//
// A cache hit's outputs are taken the same way (daemon/runner/stamps.go).
// The output stamps (.vx/outputs, a new nonce at each save) say how vx
// left each task's outputs; a run with vxd marks (.vx/outputs.seen) the
// records of that nonce it found so, every file with one link and in a
// directory reached from the root without a symbolic link (by an lstat,
// by this proof, or just written), with the token of its answer.
// A later run takes a marked record without an lstat when its answer is
// complete since a saved token no newer than the mark's, of its epoch
// (Changes.Unchanged), and lists none of the record's files. A run
// without vxd leaves the mark as it was (what the journal counted since
// the mark is still counted), and any rewrite of the stamps voids it. As
// for inputs, a link made to an output after the run that marked it, and
// a write through that link, go unseen (What the watch does not report).
//
// Any other answer (no vxd, another epoch, version or workspace, more
// paths than an answer holds, no answer within a second) is a silent
// fallback to the stat of every file; VX_LOG=debug vx run logs which way a
// run went and why. vx never starts a daemon to ask.
//
// # Repeating a fully cached run
//
// With vxd up, a run whose every task was a hit with its outputs exactly
// as vx left them, with nothing to warn of, no remote cache, and its
// listing one the journal vouches for, leaves a Memo: the tasks in order,
// their keys and masked logs, the salted digest of the request and the
// whole environment (less vx's diagnostics variables), the token taken
// before it loaded anything, and the stats of what the journal does not
// watch (git's index, HEAD, configuration and ignore files,
// .vx/outputs, the vx binary, inputs and outputs with more than one
// link or outside the watched tree). The next run with the same request,
// when the journal answers for that epoch that nothing changed and every
// stat holds, is that run again: the same logs, every task recorded as a
// hit, without loading the configuration, listing, hashing or statting a
// file of the workspace. A run never repeats with --force, --affected or
// --dry, when the workspace pushes to a platform, or when a configuration
// file, a project's directory or a path its globs match is reached
// through a symbolic link. That check (an lstat of every manifest and a
// walk of the project globs) is taken as done when the memo the run asked
// with (left only by a run that found no link) and the journal's answer
// prove nothing changed since that memo's token, and every place a link
// could be made is in a watched directory: manifests in the journal's
// view, project globs that name paths or the entries of one directory
// (Base.LinkFree). Any other fully cached run leaves a new memo;
// any other run with vxd up removes it.
package journal
