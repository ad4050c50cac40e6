package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vzn/vx/protocol/jsonrpc"
)

var update = flag.Bool("update", false, "rewrite the expected answers of testdata/conformance")

// A transcript is a file of sections: "-- send --" holds one request body
// (a message or a batch), the "-- expect --" after it the exact answer, or
// "(none)" when nothing is owed. Each file is one fresh session, replayed
// in order; answers are compared as JSON values.
type step struct {
	send, expect string
}

func parseTranscript(t *testing.T, text string) (header string, steps []step) {
	t.Helper()
	var cur *step
	var section string
	var buf []string
	flush := func() {
		body := strings.TrimSpace(strings.Join(buf, "\n"))
		switch section {
		case "":
			header = body
		case "send":
			steps = append(steps, step{send: body})
			cur = &steps[len(steps)-1]
		case "expect":
			if cur == nil {
				t.Fatal("an expect section before any send")
			}
			cur.expect = body
		}
		buf = nil
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			flush()
			section = strings.TrimSuffix(strings.TrimPrefix(line, "-- "), " --")
			continue
		}
		buf = append(buf, line)
	}
	flush()
	return header, steps
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

func TestConformanceTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/conformance/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			header, steps := parseTranscript(t, string(raw))
			f := newFixture(t, nil)
			ss := f.srv.NewSession(nil)
			defer ss.Close()
			var out strings.Builder
			out.WriteString(header + "\n")
			for i, st := range steps {
				reply := ss.HandleBody(context.Background(), []byte(st.send), func(*jsonrpc.Message) {})
				got := "(none)"
				if reply != nil {
					got = string(reply)
				}
				if !*update && !sameJSON(got, st.expect) {
					t.Errorf("step %d: sent\n  %s\ngot\n  %s\nwant\n  %s", i+1, st.send, got, st.expect)
				}
				out.WriteString("-- send --\n" + st.send + "\n-- expect --\n" + got + "\n")
			}
			if *update {
				if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
