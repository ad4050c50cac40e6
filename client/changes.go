package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// changesTimeout bounds one question to vxd's change journal.
const changesTimeout = time.Second

// maxChangesBytes bounds an answer of vxd's change journal.
const maxChangesBytes = 64 << 20

// changesHTTP is a client of its own: one connection, short timeouts.
var changesHTTP = &http.Client{Timeout: changesTimeout}

// Changes asks the workspace's running vxd what changed since the journal
// token (epoch, seq); epoch "" asks only the current token. It never
// starts a daemon: with none running it is a notRunningError, read from
// the discovery file and the lock alone. The answer is proved (ask): an
// answer from a process that does not know the token is an ImpostorError
// (in a notRunningError), and the run goes on as without a daemon.
func (c *Client) Changes(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, err
	}
	if filepath.Clean(d.Root) != filepath.Clean(c.Root) {
		return nil, &notRunningError{Root: c.Root, Reason: "the discovery file names " + d.Root}
	}
	q := url.Values{}
	if epoch != "" {
		q.Set("epoch", epoch)
		q.Set("seq", strconv.FormatUint(seq, 10))
	}
	ctx, cancel := context.WithTimeout(ctx, changesTimeout)
	defer cancel()
	code, body, err := c.ask(ctx, changesHTTP, d, http.MethodGet, wire.ChangesPath+"?"+q.Encode(), maxChangesBytes)
	if err != nil {
		c.refuse(d, err, "going on without vxd (every file is hashed)")
		return nil, err
	}
	if code != http.StatusOK {
		return nil, fmt.Errorf("vxd answered %d %s to %s: %s", code, http.StatusText(code), wire.ChangesPath, body[:min(len(body), 512)])
	}
	var ans wire.Changes
	if err := json.Unmarshal(body, &ans); err != nil {
		return nil, fmt.Errorf("reading vxd's answer to %s: %w", wire.ChangesPath, err)
	}
	return &ans, nil
}
