// Package version is the one version of vx and vxd. The Makefile stamps it
// at link time:
//
//	go build -ldflags "-X github.com/vzn/vx/protocol/version.Version=1.2.3" ./cmd/vx
//
// The shim insists that the daemon it talks to has its own version, the
// MCP serverInfo and vxd status report it, and it joins every cache key.
package version

// Version is this build's version. A build that is not stamped (go build,
// go test) is DevVersion, so a vx and a vxd built from one tree agree.
var Version = DevVersion

// DevVersion is the version of an unstamped build.
const DevVersion = "0.1.0-dev"
