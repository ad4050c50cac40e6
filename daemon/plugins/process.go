package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/vzn/vx/daemon/secret"
	"github.com/vzn/vx/internal/procmark"
	"github.com/vzn/vx/protocol/plugin"
)

// Runner runs plugin requests for one workspace.
type Runner struct {
	Root string
	// Masker masks secret values in every text taken from a plugin (nil:
	// none).
	Masker *secret.Masker
}

func (r Runner) mask(s string) string { return r.Masker.String(s) }

// command is how an entry is started: node for a JavaScript file, the
// file itself otherwise.
func command(entry string) (string, []string) {
	for _, ext := range []string{".js", ".mjs", ".cjs"} {
		if strings.HasSuffix(entry, ext) {
			return "node", []string{entry}
		}
	}
	return entry, nil
}

// Call sends req to the plugin at e and answers its stdout: one process,
// stdin closed after the request, bounded by d's timeout and
// plugin.MaxAnswer bytes of answer, and the tail of its stderr, masked.
// A failure is an *Error naming the plugin and its declaration, with that
// tail.
func (r Runner) Call(ctx context.Context, d Decl, e Entry, req plugin.Request) ([]byte, string, error) {
	req.Protocol = plugin.Version
	if len(req.Options) == 0 {
		req.Options = optionsJSON(d.Options)
	}
	in, err := json.Marshal(req)
	if err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithTimeout(ctx, d.timeout())
	defer cancel()
	name, args := command(e.Path)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = r.Root
	mark, id := requestMark(r.Root)
	cmd.Env = append(os.Environ(), mark.Env(id)...)
	cmd.Stdin = bytes.NewReader(in)
	out := &capped{max: plugin.MaxAnswer, over: cancel}
	// Twice the tail shown is kept, and cut to it once masked: a cut
	// through a secret (shorter than the slack) would escape the masking.
	tail := &tailBuf{max: 2 * plugin.MaxStderr}
	cmd.Stdout, cmd.Stderr = out, tail
	// Pipes a grandchild holds open do not keep the request waiting; what
	// the plugin started and left running (holding its stdout, say) ends
	// with the request (runTree).
	cmd.WaitDelay = 2 * time.Second
	runErr := runTree(cmd, mark)
	if errors.Is(runErr, exec.ErrWaitDelay) {
		runErr = nil // it exited with success; its answer is judged as any other
	}
	stderr := lastBytes(r.mask(tail.String()), plugin.MaxStderr)
	fail := func(reason string) ([]byte, string, error) {
		return nil, stderr, &pluginError{Plugin: d.Spec, File: d.File, Reason: r.mask(req.Stage + ": " + reason), Stderr: stderr}
	}
	switch {
	case out.overflow:
		return fail(fmt.Sprintf("its answer is longer than %d bytes", plugin.MaxAnswer))
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fail(fmt.Sprintf("no answer within %s (the declaration's \"timeout\" raises it)", d.timeout()))
	case runErr != nil:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return fail("it exited with " + ee.ProcessState.String())
		}
		return fail("it could not be started: " + runErr.Error())
	}
	return out.buf.Bytes(), stderr, nil
}

// requestEnv is the variable that marks the processes of one plugin
// request, which each one it starts inherits (internal/procmark).
const requestEnv = "VX_PLUGIN_REQUEST"

// requests numbers this process's plugin requests.
var requests atomic.Uint64

// requestMark is a new request's mark and its id, which no other
// request running now has (this process's id and the request's number).
func requestMark(root string) (procmark.Mark, string) {
	id := strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(requests.Add(1), 10)
	return procmark.Mark{Root: root, Var: requestEnv, IDs: map[string]bool{id: true}}, id
}

// capped keeps up to max bytes; past them it records the overflow and
// calls over (which kills the process).
type capped struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	max      int
	overflow bool
	over     func()
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.overflow {
		return len(p), nil
	}
	if c.buf.Len()+len(p) > c.max {
		c.overflow = true
		c.buf.Reset()
		c.over()
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

// tailBuf keeps the last max bytes written.
type tailBuf struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailBuf) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuf) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ToValidUTF8(string(t.buf), "?")
}

// lastBytes is the end of s, at most max bytes, cut at a rune's start.
func lastBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := len(s) - max
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
