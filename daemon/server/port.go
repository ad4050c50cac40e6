package server

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/vzn/vx/daemon/workspace"
)

// portInUseError is a chosen port that another socket already holds.
type portInUseError struct {
	Port   int
	Holder string // "pid 123, python3" when it could be found, else ""
}

func (e *portInUseError) Error() string {
	who := "another process"
	if e.Holder != "" {
		who += " (" + e.Holder + ")"
	}
	return fmt.Sprintf("port %d of 127.0.0.1 is already in use by %s: choose another with --port or daemon.port in vx.workspace.json (0 for any free port), or stop that process", e.Port, who)
}

// listenPort is the port to listen on: the --port option, else the
// workspace's daemon.port, else 0 (any free port).
func listenPort(o Options, m *workspace.Model) int {
	switch {
	case o.Port > 0:
		return o.Port
	case o.Port < 0:
		return 0
	case m != nil && m.Config.Daemon != nil:
		return m.Config.Daemon.Port
	}
	return 0
}

// listen listens on 127.0.0.1:port, loopback only; port 0 takes any free
// port. A port already taken is a *portInUseError.
func listen(port int) (net.Listener, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err == nil {
		return ln, nil
	}
	if port != 0 && errors.Is(err, syscall.EADDRINUSE) {
		return nil, &portInUseError{Port: port, Holder: portHolder(port)}
	}
	return nil, fmt.Errorf("listening on 127.0.0.1:%d: %w", port, err)
}
