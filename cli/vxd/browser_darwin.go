package vxd

import "os/exec"

// browserAvailable: a Mac has one (open hands a file to it).
func browserAvailable([]string) bool { return true }

// openBrowser opens a local file in the default browser.
func openBrowser(path string) error { return exec.Command("open", path).Run() }
