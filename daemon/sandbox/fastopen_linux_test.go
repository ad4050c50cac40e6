package sandbox

import (
	"net"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/vzn/vx/protocol/wire"
)

// TCP Fast Open connects with sendto or sendmsg (MSG_FASTOPEN) and no
// connect(2). With the network denied such a connection is recorded, and
// in enforce mode it is refused as connect would be.
func TestFastOpenConnectIsRecordedAndDenied(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	addr := ln.Addr().(*net.TCPAddr)
	cmd := `python3 -c '
import socket
for send in (lambda s, a: s.sendto(b"x", socket.MSG_FASTOPEN, a), lambda s, a: s.sendmsg([b"x"], [], socket.MSG_FASTOPEN, a)):
    try:
        send(socket.socket(), ("127.0.0.1", ` + strconv.Itoa(addr.Port) + `))
        print("sent")
    except OSError as e:
        print("refused", e.errno)
'`
	for _, mode := range []string{wire.SandboxReport, wire.SandboxEnforce} {
		t.Run(mode, func(t *testing.T) {
			out, code, vs := confined(t, mode, false, t.TempDir(), cmd)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, out)
			}
			want := "sent\nsent\n"
			if mode == wire.SandboxEnforce {
				want = "refused 13\nrefused 13\n"
			}
			if out != want {
				t.Fatalf("%s: output %q, want %q", mode, out, want)
			}
			if len(vs) != 1 || vs[0].Op != opConnect || vs[0].Address != addr.String() || vs[0].Denied != (mode == wire.SandboxEnforce) || vs[0].Process != "python3" {
				t.Fatalf("violations = %+v, want one connect to %s (identical ones kept once)", vs, addr)
			}
		})
	}
	if n := accepted.Load(); n > 2 {
		t.Fatalf("%d connections accepted, want only report mode's 2", n)
	}
}
