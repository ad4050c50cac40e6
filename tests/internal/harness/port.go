package harness

import (
	"net"
	"testing"
)

// FreePort is a loopback port nothing listens on as it returns. Another
// process may take it before the caller's server listens (any socket's
// local port comes from the same range): a server started on it goes
// through OnFreePort.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// OnFreePort calls start with a free port, and again with another while
// start reports the port was taken before its server could listen
// (EADDRINUSE), five times at most.
func OnFreePort(t testing.TB, what string, start func(port int) (taken bool)) {
	t.Helper()
	for try := 1; ; try++ {
		if !start(FreePort(t)) {
			return
		}
		if try == 5 {
			t.Fatalf("%s found its port taken %d times", what, try)
		}
	}
}
