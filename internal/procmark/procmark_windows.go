package procmark

import "time"

// BecomeSubreaper does nothing: a Job Object holds what the caller's
// children orphan.
func BecomeSubreaper() {}

// Sweep does nothing: the holder's Job Object, which holds every process
// it started wherever it went, ends them when the holder lets go of it.
func Sweep(Mark, int, time.Time) {}

// Kill does nothing, as Sweep.
func Kill(Mark, time.Time) {}

// Find is nil: Windows ends a Job Object's processes with its holder; no
// process table is searched.
func Find(Mark) []int { return nil }
