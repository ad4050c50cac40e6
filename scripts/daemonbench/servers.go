package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The reference servers run in child processes (this binary with -serve),
// like vxd, so that no server shares the client's Go runtime. A child
// prints its URL and serves until its stdin closes.

// floorBody is what the bare handler answers: a small JSON-RPC result.
const floorBody = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`

func serveChild(kind string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	var h http.Handler
	if path, ok := strings.CutPrefix(kind, "floor-file="); ok {
		// The floor answering given bytes: what vxd answered to a call.
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		kind, h = "floor-file", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		})
	}
	switch kind {
	case "floor-file":
	case "floor":
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, floorBody)
		})
	case "sdk", "sdk-json":
		srv := mcp.NewServer(&mcp.Implementation{Name: "trivial", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "ok", Description: "answers ok"},
			func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{JSONResponse: kind == "sdk-json"})
	default:
		return fmt.Errorf("unknown server %q", kind)
	}
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	return http.Serve(ln, h)
}

// child is a reference server process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	url   string
}

func startChild(kind string) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-serve", kind)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		return nil, fmt.Errorf("starting the %s server: %w", kind, err)
	}
	return &child{cmd: cmd, stdin: in, url: strings.TrimSpace(line)}, nil
}

func (c *child) stop() {
	c.stdin.Close()
	_ = c.cmd.Wait()
}
