package main

import "github.com/vzn/vx/internal/gcpace"

// limitMemory paces vxd's collector from the live heap each collection
// measures (internal/gcpace: the heap may grow 16 MB past it, or a
// quarter of it when that is more), as vx run's is. vxd's live heap grows
// with the workspace: 2 to 3 MiB between reloads with 1,000 projects,
// some 35 MB with 10,000 (the change journal's watch of 20,000
// directories, the model). A fixed soft limit of 32 MiB, as vxd had, sat
// below that, and the collector ran without end: 164 collections in a
// minute, a quarter of vxd's CPU, taken from the run it served on a
// two-core machine. A fixed GOGC instead lets a large heap grow to many
// times what it holds. GOGC in the environment decides instead, and
// GOMEMLIMIT sets a limit as for any Go program.
func limitMemory() { gcpace.Start() }
