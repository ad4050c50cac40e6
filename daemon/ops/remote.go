package ops

import (
	"context"
	"time"

	"github.com/vzn/vx/daemon/history"
	"github.com/vzn/vx/daemon/remotecache"
	"github.com/vzn/vx/protocol/wire"
)

// remoteSettings resolves the workspace's remote cache; the answer never
// holds the token or the key, and a setting that keeps the remote off is
// reported in Error.
func remoteSettings(e *Env) (*remotecache.Settings, *wire.RemoteStatus) {
	m, _ := e.CurrentModel()
	s, err := remotecache.Resolve(m, e.Environ)
	st := s.Status()
	if s != nil {
		e.Masker.Add(s.Secrets()...)
	}
	if err != nil {
		st.Error = e.Masker.String(err.Error())
	}
	return s, st
}

// lastRemoteStatus fills what the latest run recorded about the remote.
func lastRemoteStatus(ctx context.Context, e *Env, st *wire.RemoteStatus) {
	if h, err := e.History(ctx); err == nil {
		if a, err := h.RemoteActivitySince(ctx, time.Time{}, ""); err == nil {
			st.LastRunStatus = a.LastStatus
		}
	}
}

// remoteInfo is the remote cache as getWorkspaceInfo and vx info show it:
// settings and the latest run's status, no request to the server.
func remoteInfo(ctx context.Context, e *Env) *wire.RemoteStatus {
	_, st := remoteSettings(e)
	if st.Configured {
		lastRemoteStatus(ctx, e, st)
	}
	return st
}

// CacheStatus answers `vx cache status`: it asks the remote cache whether
// it is reachable, accepts the token and is enabled, and how long a round
// trip takes.
func CacheStatus(ctx context.Context, e *Env) (*wire.RemoteStatus, error) {
	s, st := remoteSettings(e)
	if !st.Configured || st.Error != "" {
		if !st.Configured {
			st.Message = "no remote cache configured: set remoteCache.url in vx.workspace.json or VX_REMOTE_CACHE_URL"
		}
		return st, nil
	}
	probe := remotecache.Probe(ctx, s)
	probe.Message = e.Masker.String(probe.Message)
	lastRemoteStatus(ctx, e, probe)
	return probe, nil
}

// remoteActivity24h splits the last day's hits by source and, with a
// remote configured, adds its transfers and (when asked) a live check.
func remoteActivity24h(ctx context.Context, e *Env, h *history.Store, project string, check bool, out *CacheStatsOutput) error {
	a, err := h.RemoteActivitySince(ctx, time.Now().Add(-24*time.Hour), project)
	if err != nil {
		return err
	}
	out.LocalHits24h, out.RemoteHits24h = a.LocalHits, a.RemoteHits
	var st *wire.RemoteStatus
	if check {
		if st, err = CacheStatus(ctx, e); err != nil {
			return err
		}
	} else {
		st = remoteInfo(ctx, e)
	}
	if st.Configured {
		out.Remote, out.RemoteActivity24h = st, &a
	}
	return nil
}
