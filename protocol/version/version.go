// Package version is the one version of vx and vxd. The Makefile stamps it
// at link time:
//
//	go build -ldflags "-X github.com/vzn/vx/protocol/version.Version=1.2.3" ./cmd/vx
//
// The shim insists that the daemon it talks to has its own version, the
// MCP serverInfo and vxd status report it, and it joins every cache key.
package version

import (
	"runtime"
	"runtime/debug"
)

// Version is this build's version. A build that is not stamped (go build,
// go test) is DevVersion, so a vx and a vxd built from one tree agree.
var Version = DevVersion

// DevVersion is the version of an unstamped build.
const DevVersion = "0.1.0-dev"

// Commit is the git commit the build was made from, stamped at link time
// (-X github.com/vzn/vx/protocol/version.Commit=...) by make build and make
// release. Unstamped, it is the commit go build recorded, if any.
var Commit = ""

// Line is what `NAME --version` prints: the name, the version, the commit
// and the OS/architecture the binary was built for, e.g.
// "vx 1.2.3 (commit 0123abc, linux/arm64)".
func Line(name string) string {
	return name + " " + Version + " (commit " + commit() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}

// commit is Commit, else the VCS revision go build embedded, else a word
// saying it is not known (go test and go run record none).
func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" && dirty {
			rev += "-dirty"
		}
		if rev != "" {
			return rev
		}
	}
	return "unknown"
}
