package runner_test

// The tests' package.json scripts, as cmd.exe runs them (vx runs scripts
// with cmd.exe /d /s /c on Windows, as npm does): the same effects as the
// sh ones. cmd.exe has no true, no sleep (ping waits about a second a
// count) and no mkdir -p, and its echo keeps in its line a space before
// && and ends the line with CR LF.
const (
	scriptTrue  = "exit 0"
	scriptBuild = "(if not exist dist mkdir dist) && echo built> dist/out.txt"
	scriptSaid  = scriptBuild + "&& echo said"
	scriptGen   = "ping -n 3 127.0.0.1 > nul & (if not exist dist mkdir dist) && type gen.txt > dist/gen.txt"
	scriptPrep  = "ping -n 2 127.0.0.1 > nul"
	// eol ends a line scripts print (the runner passes it through), and
	// builtOut is what scriptBuild writes to dist/out.txt.
	eol      = "\r\n"
	builtOut = "built\r\n"
)
