package platformpush

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/protocol/wire"
)

// Report counts what a push did.
type Report struct {
	Sent     int // stored by the platform now
	Known    int // the platform had them already
	Kept     int // left in the outbox for later
	Rejected int // refused as documents: dropped from the outbox
}

// Flush sends every run waiting in the outbox, oldest first, removing
// each one the platform stored or already had. It stops at the first
// failure to reach the platform (the rest stay for later).
func Flush(ctx context.Context, root string, t *Target, warn io.Writer) (Report, error) {
	var rep Report
	dir := OutboxDir(root)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	type item struct {
		path string
		mod  int64
	}
	var items []item
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		items = append(items, item{filepath.Join(dir, e.Name()), info.ModTime().UnixNano()})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].mod < items[j].mod })
	for i, it := range items {
		body, err := os.ReadFile(it.path)
		if err != nil {
			continue
		}
		res, err := send(ctx, t, body)
		var pe *Error
		switch {
		case errors.As(err, &pe) && pe.Permanent():
			fmt.Fprintf(warn, "vx: platform: dropping %s from the outbox: %v\n", filepath.Base(it.path), err)
			_ = os.Remove(it.path)
			rep.Rejected++
			continue
		case errors.As(err, &pe) && pe.Status == http.StatusForbidden && docWorkspace(body) != t.Workspace:
			// Kept under the workspace it was recorded for, which this
			// token may not push to; later runs, for the target's own
			// workspace, still go.
			fmt.Fprintf(warn, "vx: platform: keeping %s in the outbox: %v\n", filepath.Base(it.path), err)
			rep.Kept++
			continue
		case err != nil:
			rep.Kept += len(items) - i
			return rep, err
		case res.Created:
			rep.Sent++
		default:
			rep.Known++
		}
		_ = os.Remove(it.path)
	}
	return rep, nil
}

// AfterRun pushes the run that just ended (and then the outbox) within
// Budget. It never fails: what cannot be delivered is kept in the outbox
// and a one-line warning goes to warn.
func AfterRun(ctx context.Context, root string, t *Target, sum *wire.RunSummary, mask func(string) string, warn io.Writer) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), Budget)
	defer cancel()
	h, err := history.OpenReadOnly(ctx, history.Path(root), nil)
	if err != nil {
		fmt.Fprintf(warn, "vx: platform: run %s not pushed: %s\n", sum.RunID, mask(err.Error()))
		return
	}
	defer h.Close()
	doc, err := build(ctx, root, h, sum.RunID, t, sum, mask)
	if err != nil {
		fmt.Fprintf(warn, "vx: platform: run %s not pushed: %s\n", sum.RunID, mask(err.Error()))
		return
	}
	body, err := encode(doc)
	if err != nil {
		fmt.Fprintf(warn, "vx: platform: run %s not pushed: %v\n", sum.RunID, err)
		return
	}
	// Into the outbox first, so that a push cut short loses nothing.
	if err := Keep(root, doc.RunID, body); err != nil {
		fmt.Fprintf(warn, "vx: platform: cannot keep run %s in .vx/outbox: %v\n", sum.RunID, err)
	}
	rep, err := Flush(ctx, root, t, warn)
	if err != nil {
		fmt.Fprintf(warn, "vx: platform: %s; %d run(s) kept in .vx/outbox for the next run or vx push\n", mask(err.Error()), rep.Kept)
	}
}

func encode(doc *wire.PushRun) ([]byte, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if len(b) > wire.MaxPushBytes {
		return nil, fmt.Errorf("the run is %d bytes, over the platform's %d", len(b), wire.MaxPushBytes)
	}
	return b, nil
}

// All queues every finished run of the local history the platform does
// not store yet into the outbox (it is asked, a page of run ids at a
// time) and flushes it.
func All(ctx context.Context, root string, t *Target, mask func(string) string, warn io.Writer) (Report, error) {
	h, err := history.OpenReadOnly(ctx, history.Path(root), nil)
	if err != nil {
		return Report{}, err
	}
	defer h.Close()
	var before int64
	known := 0
	for {
		runs, err := h.ListRuns(ctx, history.MaxLimit, before)
		if err != nil {
			return Report{}, err
		}
		var ids []string
		for _, r := range runs {
			before = r.Seq
			if r.Status != history.RunRunning {
				ids = append(ids, r.ID)
			}
		}
		have, err := knownIDs(ctx, t, ids)
		if err != nil {
			return Report{Known: known}, err
		}
		for _, id := range ids {
			if have[id] {
				known++
				continue
			}
			doc, err := build(ctx, root, h, id, t, nil, mask)
			if err != nil {
				return Report{Known: known}, err
			}
			body, err := encode(doc)
			if err != nil {
				fmt.Fprintf(warn, "vx: platform: skipping run %s: %v\n", id, err)
				continue
			}
			if err := Keep(root, id, body); err != nil {
				return Report{Known: known}, err
			}
		}
		if len(runs) < history.MaxLimit {
			break
		}
	}
	rep, err := Flush(ctx, root, t, warn)
	rep.Known += known
	return rep, err
}

// knownIDs asks the platform which of ids it stores for the target's
// workspace. A platform without the route knows none (every run is sent;
// it stores each once).
func knownIDs(ctx context.Context, t *Target, ids []string) (map[string]bool, error) {
	have := map[string]bool{}
	for len(ids) > 0 {
		n := min(len(ids), wire.MaxKnownQuery)
		body, _ := json.Marshal(wire.KnownRequest{Workspace: t.Workspace, RunIDs: ids[:n]})
		ids = ids[n:]
		var res wire.KnownResponse
		err := post(ctx, t, wire.PlatformKnownPath, body, &res)
		var pe *Error
		if errors.As(err, &pe) && pe.Status == http.StatusNotFound {
			return map[string]bool{}, nil
		}
		if err != nil {
			return nil, err
		}
		for _, id := range res.Known {
			have[id] = true
		}
	}
	return have, nil
}

// docWorkspace is the workspace slug a kept run was recorded for.
func docWorkspace(body []byte) string {
	var d struct {
		Workspace string `json:"workspace"`
	}
	_ = json.Unmarshal(body, &d)
	return d.Workspace
}
