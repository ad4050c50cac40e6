package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/vzn/vx/protocol/layout"
	"github.com/vzn/vx/protocol/wire"
)

// maxApproveAnswer bounds what the approval routes may answer.
const maxApproveAnswer = 1 << 20

// Approve approves the plan named id on the running daemon with the
// approval key (.vx/daemon/approve.key), as a person in a terminal does;
// it answers the plan approved and those still waiting. It never starts a
// daemon.
func (c *Client) Approve(ctx context.Context, id string) (*wire.Approvals, error) {
	return c.approval(ctx, http.MethodPost, wire.ApprovePath+"/"+url.PathEscape(id))
}

// Pending lists the plans awaiting approval on the running daemon.
func (c *Client) Pending(ctx context.Context) (*wire.Approvals, error) {
	return c.approval(ctx, http.MethodGet, wire.ApprovePath)
}

// ApproverPage is the status page address that logs a browser in as one
// that may approve plans (it carries the approval key).
func (c *Client) ApproverPage(ctx context.Context) (string, error) {
	d, key, err := c.approveKey(ctx)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("http://127.0.0.1:%d/?%s=%s", d.Port, wire.ApproveLoginParam, url.QueryEscape(key)), nil
}

// approveKey finds the running daemon, checks that it serves this
// workspace (before handing it the key) and reads the approval key.
func (c *Client) approveKey(ctx context.Context) (*wire.Discovery, string, error) {
	d, err := c.Discovery()
	if err != nil {
		return nil, "", err
	}
	if _, err := c.status(ctx, d); err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(layout.ApproveKey(c.Root))
	if err != nil {
		return nil, "", fmt.Errorf("reading the approval key: %w (the running vxd writes it when it starts; `vxd restart` if it predates vx approve)", err)
	}
	return d, strings.TrimSpace(string(b)), nil
}

func (c *Client) approval(ctx context.Context, method, path string) (*wire.Approvals, error) {
	d, key, err := c.approveKey(ctx)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("http://127.0.0.1:%d%s", d.Port, path), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set(wire.ApproveKeyHeader, key)
	// The key goes only over a connection the daemon proved itself on
	// (approveKey's status vouched for d), never to whoever took the
	// port since.
	hc := &http.Client{Transport: c.Transport(), Timeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking vxd (pid %d): %w", d.PID, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxApproveAnswer))
	if err != nil {
		return nil, fmt.Errorf("reading vxd's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return nil, errors.New(e.Error)
		}
		return nil, fmt.Errorf("vxd answered %s: %s", resp.Status, bytes.TrimSpace(body))
	}
	var a wire.Approvals
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("vxd's answer is not a list of plans: %w", err)
	}
	return &a, nil
}
