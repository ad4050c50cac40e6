package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/mcpserver"
	"github.com/vzn/vx/protocol/mcp"
)

// BenchmarkWarmCall measures what vxd's MCP path adds to answering a
// memoized tool answer over HTTP (scripts/daemonbench's tool-call ratio,
// in one process): "floor" is a bare net/http handler writing the bytes
// the guarded endpoint answers; "guarded" is Guard, the session-era
// endpoint and a session calling a tool that returns its answer already
// encoded (as listTasks' memo does); "guarded-secret" the same with a
// secret to mask. Each sub-benchmark sends the same request with the
// same headers over one keep-alive connection.
func BenchmarkWarmCall(b *testing.B) {
	answer := warmAnswer()
	for _, kind := range []string{"floor", "guarded", "guarded-secret", "ping"} {
		b.Run(kind, func(b *testing.B) {
			url, sid, stop := warmServer(b, kind, answer)
			defer stop()
			body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list","arguments":{"project":"pkg-0500"}}}`)
			if kind == "ping" {
				body = []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
			}
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
			call := func() int {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+testToken)
				req.Header.Set(mcp.HeaderSessionID, sid)
				req.Header.Set(mcp.HeaderProtocolVersion, "2025-06-18")
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
				return int(n)
			}
			n := call()
			b.SetBytes(int64(n))
			for b.Loop() {
				call()
			}
		})
	}
}

// warmAnswer is a tools/call result the size of listTasks' for one project.
func warmAnswer() mcpserver.Encoded {
	type task struct {
		Name      string   `json:"name"`
		Command   string   `json:"command"`
		DependsOn []string `json:"dependsOn"`
		Inputs    []string `json:"inputs"`
		Cache     bool     `json:"cache"`
	}
	out := map[string]any{"root": "/tmp/ws", "projects": []any{map[string]any{"name": "pkg-0500", "dir": "packages/pkg-0500", "tags": []string{"lib"},
		"tasks": []task{{"build", "node build.js", []string{"^build"}, []string{"src/**", "package.json"}, true}, {"test", "node test.js", []string{"build"}, []string{"src/**", "test/**"}, true}}}}}
	enc, err := mcpserver.EncodeResult(out)
	if err != nil {
		panic(err)
	}
	return enc
}

func warmServer(b *testing.B, kind string, answer mcpserver.Encoded) (url, sid string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	url = fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var h http.Handler
	var srv *mcpserver.Server
	if kind == "floor" {
		body := []byte(`{"jsonrpc":"2.0","id":7,"result":` + string(answer) + `}`)
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		})
	} else {
		m := secret.NewMasker()
		if kind == "guarded-secret" {
			m.Add("s3cr3t-value-never-in-answers")
		}
		srv = mcpserver.New(&mcpserver.Options{Name: "bench", Version: "1", Mask: m.String, MaskJSON: m.JSON})
		obj := json.RawMessage(`{"type":"object"}`)
		srv.SetTools([]mcpserver.Tool{{Def: mcp.Tool{Name: "list", InputSchema: obj}, Handler: func(context.Context, *mcpserver.Call) (any, error) {
			return answer, nil
		}}})
		mux := http.NewServeMux()
		mux.Handle("/mcp", NewMCPHandler(srv, nil))
		h = Guard(mux, GuardOptions{Port: port, Token: testToken})
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	stop = func() {
		_ = hs.Close()
		if srv != nil {
			srv.Close()
		}
	}
	if srv == nil {
		return url, "none", stop
	}
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(fmt.Sprintf(initBody, "2025-06-18"))))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	return url, resp.Header.Get(mcp.HeaderSessionID), stop
}
