package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

// The header names the POST path indexes directly are canonical, and a
// client spelling them in lower case is read the same: its token, session
// and revision count, a revision vxd does not speak is refused.
func TestHeadersReadWhateverTheirCase(t *testing.T) {
	for _, k := range []string{hdrAccept, hdrContentType, hdrAuthorization, hdrSessionID, hdrProtocolVersion} {
		if textproto.CanonicalMIMEHeaderKey(k) != k {
			t.Errorf("%q is not canonical", k)
		}
	}
	d := startDaemon(t, 0)
	sid := initSession(t, d, "2025-06-18")
	raw := func(version string) (int, string) {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", d.Port))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		body := `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}}`
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:%d\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n"+
			"authorization: Bearer %s\r\nmcp-session-id: %s\r\nmcp-protocol-version: %s\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s",
			d.Port, testToken, sid, version, len(body), body)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := raw("2025-06-18"); code != 200 || !strings.Contains(body, `"args":{"a":1}`) {
		t.Errorf("lower-case headers: %d %s", code, body)
	}
	if code, body := raw("2099-01-01"); code != 400 || !strings.Contains(body, "unsupported MCP-Protocol-Version") {
		t.Errorf("lower-case unsupported revision: %d %s", code, body)
	}
}
