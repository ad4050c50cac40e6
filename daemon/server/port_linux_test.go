package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

// TestPortInUseNamesItsHolder: listening on a port this process holds
// fails with the port and this process's pid and name.
func TestPortInUseNamesItsHolder(t *testing.T) {
	for _, network := range []string{"tcp4", "tcp6"} {
		addr := "127.0.0.1:0"
		if network == "tcp6" {
			addr = "[::]:0"
		}
		held, err := net.Listen(network, addr)
		if err != nil {
			t.Logf("%s: %v (skipped)", network, err)
			continue
		}
		port := held.Addr().(*net.TCPAddr).Port
		ln, err := listen(port)
		if err == nil {
			ln.Close()
			held.Close()
			t.Logf("%s: port %d bound beside %s (the system allows it)", network, port, addr)
			continue
		}
		held.Close()
		var pe *portInUseError
		comm, _ := os.ReadFile("/proc/self/comm")
		want := fmt.Sprintf("pid %d, %s", os.Getpid(), strings.TrimSpace(string(comm)))
		if !errors.As(err, &pe) || pe.Port != port || pe.Holder != want || !strings.Contains(err.Error(), fmt.Sprintf("port %d", port)) {
			t.Errorf("%s: listen(%d) held by this process = %v (%#v); want a portInUseError naming %s", network, port, err, pe, want)
		}
	}
}
