// Package jobobject holds a Windows process, and every process it starts
// after it is held, in a Job Object of its own that ends them all when
// the job is terminated or its last handle closes: when the holder lets
// go of it, or exits, however it exits. Windows has no process groups to
// signal; this is how vx's tasks and plugins leave no process behind
// there. It has no code on other systems.
package jobobject
