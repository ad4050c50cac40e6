package ops

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/vzn/vx/daemon/platformpush"
	"github.com/vzn/vx/daemon/workspace"
	"github.com/vzn/vx/protocol/wire"
)

// checkRemoteCache is vx cache status as a doctor check: when a remote
// cache is configured, it must be reachable, accept the token and be
// enabled. Only the masked settings and messages are shown.
func checkRemoteCache(ctx context.Context, e *Env) DoctorCheck {
	c := DoctorCheck{Name: "remote cache"}
	st, err := CacheStatus(ctx, e)
	if err != nil {
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), "vx cache status repeats the check"
		return c
	}
	local := "; until then runs use the local cache only"
	switch {
	case !st.Configured:
		c.Status, c.Detail = CheckSkipped, "not configured (remoteCache.url in "+workspace.ConfigFile+" or VX_REMOTE_CACHE_URL)"
	case st.Error != "":
		c.Status, c.Detail = CheckProblem, st.Error
		c.Fix = "correct the setting named (remoteCache in " + workspace.ConfigFile + ", or the environment variable); vx cache status checks it again"
	case !st.Reachable:
		c.Status, c.Detail = CheckProblem, st.Message
		c.Fix = fmt.Sprintf("check that %s (from %s) is the server's address and that the server is up: GET %s/v8/artifacts/status should answer%s", st.URL, st.Sources["url"], st.URL, local)
	case !st.Authorized && !st.TokenSet:
		// Servers refuse a request without a token variously (401, 400).
		c.Status, c.Detail = CheckProblem, st.Message+" (no token is set)"
		c.Fix = fmt.Sprintf("set VX_REMOTE_CACHE_TOKEN (or TURBO_TOKEN) to a token the server accepts for team %s%s", st.Team, local)
	case st.Status == wire.RemoteUnauthorized || st.Status == wire.RemoteForbidden:
		c.Status, c.Detail = CheckProblem, st.Message
		c.Fix = fmt.Sprintf("the server refuses the token in %s for team %s: set one it accepts (and check remoteCache.team or VX_REMOTE_CACHE_TEAM)%s", st.Sources["token"], st.Team, local)
	case !st.Authorized:
		c.Status, c.Detail = CheckProblem, st.Message
		c.Fix = "the server answered but not as a remote cache should: its own log says why; vx cache status repeats the check" + local
	case !st.Enabled:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s accepts the token but reports its cache %q", st.URL, st.Status)
		c.Fix = "enable caching on the server (Vercel: the team's Remote Caching setting; a self-hosted server: its configuration)" + local
	default:
		mode := "read and write"
		if st.ReadOnly {
			mode = "read-only"
		}
		c.Status, c.Detail = CheckOK, fmt.Sprintf("%s, team %s: reachable (%d ms), token accepted, caching enabled, %s", st.URL, st.Team, st.RTTMs, mode)
	}
	return c
}

// checkPlatform asks the platform, when the workspace pushes to one,
// whether it answers and whether VX_PLATFORM_TOKEN may push this
// workspace. The token is never shown.
func checkPlatform(ctx context.Context, e *Env) DoctorCheck {
	c := DoctorCheck{Name: "platform"}
	var cfg *workspace.PlatformConfig
	if m, _ := e.CurrentModel(); m != nil {
		cfg = m.Config.Platform
	}
	e.Masker.Add(e.Environ[platformpush.EnvToken])
	t, ok, err := platformpush.Resolve(cfg, e.environList())
	tokenFix := "set VX_PLATFORM_TOKEN to a live ingest token of the org (vx-platform token create --org ORG --scope ingest, or Admin → Tokens on the dashboard)"
	switch {
	case !ok:
		c.Status, c.Detail = CheckSkipped, "not configured (platform.url and platform.workspace in "+workspace.ConfigFile+", or VX_PLATFORM_URL and VX_PLATFORM_WORKSPACE)"
		return c
	case err != nil && strings.HasPrefix(err.Error(), platformpush.EnvToken):
		c.Status, c.Detail, c.Fix = CheckProblem, err.Error(), tokenFix
		return c
	case err != nil:
		c.Status, c.Detail = CheckProblem, err.Error()
		c.Fix = "set what the message names: platform.url and platform.workspace in " + workspace.ConfigFile + " (or VX_PLATFORM_URL, VX_PLATFORM_WORKSPACE)"
		return c
	}
	ctx, cancel := context.WithTimeout(ctx, platformpush.Budget)
	defer cancel()
	err = platformpush.Check(ctx, t)
	kept := outboxNote(e.Root)
	var pe *platformpush.Error
	switch {
	case err == nil:
		c.Status, c.Detail = CheckOK, fmt.Sprintf("%s answers and accepts the token for workspace %s%s", t.URL, t.Workspace, kept)
	case errors.As(err, &pe) && pe.Status == http.StatusUnauthorized:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s refuses VX_PLATFORM_TOKEN (HTTP 401): the token is unknown or revoked%s", t.URL, kept)
		c.Fix = tokenFix
	case errors.As(err, &pe) && pe.Status == http.StatusForbidden:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s refuses VX_PLATFORM_TOKEN for workspace %s (HTTP 403): %s%s", t.URL, t.Workspace, pe.Msg, kept)
		c.Fix = fmt.Sprintf("use a token of scope ingest (or admin) of the org, not pinned to another workspace than %s (vx-platform token create --org ORG --scope ingest)", t.Workspace)
	case errors.As(err, &pe) && pe.Status == http.StatusNotFound:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s has no %s: it is not a vx-platform, or one too old for this vx", t.URL, wire.PlatformKnownPath)
		c.Fix = "check platform.url (or VX_PLATFORM_URL), or upgrade vx-platform"
	case errors.As(err, &pe):
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s answered HTTP %d: %s%s", t.URL, pe.Status, pe.Msg, kept)
		c.Fix = fmt.Sprintf("vx-platform's log says why; GET %s%s says whether its database answers", t.URL, wire.PlatformHealthPath)
	default:
		c.Status, c.Detail = CheckProblem, fmt.Sprintf("%s is not reachable: %v%s", t.URL, err, kept)
		c.Fix = fmt.Sprintf("check that %s is the platform's address and that it is up (GET %s%s); runs made meanwhile wait in .vx/outbox/ and vx push sends them", t.URL, t.URL, wire.PlatformHealthPath)
	}
	return c
}

// outboxNote says how many runs wait to be pushed, if any.
func outboxNote(root string) string {
	entries, err := os.ReadDir(platformpush.OutboxDir(root))
	n := 0
	for _, en := range entries {
		if err == nil && strings.HasSuffix(en.Name(), ".json") && !strings.HasPrefix(en.Name(), ".") {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d run(s) wait in .vx/outbox/ (vx push sends them)", n)
}
