package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/vzn/vx/daemon/journal/watch"
	"github.com/vzn/vx/protocol/version"
	"github.com/vzn/vx/protocol/wire"
)

// journalEndpoint starts the change journal (daemon/journal/watch) and
// returns the handler of GET wire.ChangesPath. A bad VXD_JOURNAL_LIMIT is
// an error; a journal that cannot start answers why on every question (vx
// then stats every file).
func (d *daemon) journalEndpoint(ctx context.Context) (http.Handler, *watch.Journal, error) {
	limit, err := watch.Limit()
	if err != nil {
		return nil, nil, err
	}
	maxFDs, err := watch.Descriptors()
	if err != nil {
		return nil, nil, err
	}
	d.budget = watch.NewBudget(maxFDs)
	j, startErr := watch.Start(ctx, d.root, limit, d.budget, d.log)
	if startErr != nil {
		d.log.Warn().Err(startErr).Msg("change journal not started: vx runs stat every file")
	}
	d.mu.Lock()
	d.journal = j
	d.mu.Unlock()
	return d.proved(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		epoch, seqText := q.Get("epoch"), q.Get("seq")
		var seq uint64
		if epoch != "" {
			if len(epoch) > 64 || strings.Trim(epoch, "0123456789abcdef") != "" {
				http.Error(w, "epoch: want the hex id of an earlier answer", http.StatusBadRequest)
				return
			}
			var perr error // this request's own: err belongs to the start
			if seq, perr = strconv.ParseUint(seqText, 10, 64); perr != nil {
				http.Error(w, fmt.Sprintf("seq %q: want the sequence number of an earlier answer", seqText), http.StatusBadRequest)
				return
			}
		}
		var ans wire.Changes
		if j == nil {
			ans = wire.Changes{Root: d.root, Reason: "the change journal did not start: " + startErr.Error()}
		} else {
			ans = j.Since(r.Context(), epoch, seq, epoch != "")
		}
		ans.Version = version.Version
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&ans)
	}), j, nil
}

// reserveWatch takes what a configuration watch on dir holds from the
// watches' descriptor budget (the journal stops first when it is out).
func (d *daemon) reserveWatch(dir string) (int, error) {
	d.mu.Lock()
	j := d.journal
	d.mu.Unlock()
	return d.budget.ReserveFirst(dir, j)
}
