//go:build !windows

package runner_test

// The tests' package.json scripts, as sh runs them (vx runs scripts with
// sh -c on Unix).
const (
	scriptTrue  = "true"
	scriptBuild = "mkdir -p dist && echo built > dist/out.txt"
	scriptSaid  = scriptBuild + " && echo said"
	scriptGen   = "sleep 1.5 && mkdir -p dist && cat gen.txt > dist/gen.txt"
	scriptPrep  = "sleep 0.3"
	// eol ends a line scripts print (the runner passes it through), and
	// builtOut is what scriptBuild writes to dist/out.txt.
	eol      = "\n"
	builtOut = "built\n"
)
