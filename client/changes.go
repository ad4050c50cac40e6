package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"time"

	"github.com/vzn/vx/protocol/wire"
)

// changesTimeout bounds one question to vxd's change journal.
const changesTimeout = time.Second

// changesHTTP is a client of its own: one connection, short timeouts.
var changesHTTP = &http.Client{Timeout: changesTimeout}

// Changes asks the workspace's running vxd what changed since the journal
// token (epoch, seq); epoch "" asks only the current token. It never
// starts a daemon: with none running it is a NotRunningError, read from
// the discovery file alone.
func (c *Client) Changes(ctx context.Context, epoch string, seq uint64) (*wire.Changes, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, err
	}
	if filepath.Clean(d.Root) != filepath.Clean(c.Root) {
		return nil, &NotRunningError{Root: c.Root, Reason: "the discovery file names " + d.Root}
	}
	q := url.Values{}
	if epoch != "" {
		q.Set("epoch", epoch)
		q.Set("seq", strconv.FormatUint(seq, 10))
	}
	ctx, cancel := context.WithTimeout(ctx, changesTimeout)
	defer cancel()
	u := fmt.Sprintf("http://127.0.0.1:%d%s?%s", d.Port, wire.ChangesPath, q.Encode())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+d.Token)
	resp, err := changesHTTP.Do(req)
	if err != nil {
		return nil, &NotRunningError{Root: c.Root, Reason: "the daemon in the discovery file does not answer"}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("vxd answered %s to %s: %s", resp.Status, wire.ChangesPath, msg)
	}
	var ans wire.Changes
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&ans); err != nil {
		return nil, fmt.Errorf("reading vxd's answer to %s: %w", wire.ChangesPath, err)
	}
	return &ans, nil
}
