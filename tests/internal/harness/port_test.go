package harness

import (
	"fmt"
	"testing"
)

// A server that finds its port taken is started again on another port;
// one that never gets a port fails the test after five tries.
func TestOnFreePortTriesAnotherPort(t *testing.T) {
	var ports []int
	OnFreePort(t, "a server", func(port int) bool {
		ports = append(ports, port)
		return len(ports) < 3
	})
	if len(ports) != 3 || ports[0] == 0 {
		t.Fatalf("started on %v: want three tries, the last one kept", ports)
	}
	ft := &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }()
		OnFreePort(ft, "a server", func(int) bool { return true })
	}()
	if ft.failed != "a server found its port taken 5 times" {
		t.Errorf("always taken: failed with %q", ft.failed)
	}
}

// fakeT records a Fatalf and stops the caller as t.Fatalf does.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	panic(f)
}
