package wire

// Where a cache hit came from (TaskRow.CacheSource).
const (
	CacheSourceLocal  = "local"
	CacheSourceRemote = "remote"
)

// Remote cache statuses (RemoteStatus.Status): the server's own answer to
// GET /v8/artifacts/status, or what kept vx from getting one.
const (
	RemoteEnabled      = "enabled"
	RemoteDisabled     = "disabled"
	RemoteUnreachable  = "unreachable"
	RemoteTimeout      = "timeout"
	RemoteUnauthorized = "unauthorized"
	RemoteForbidden    = "forbidden"
	RemoteServerError  = "serverError"
	RemoteBadResponse  = "badResponse"
	RemoteMisconfig    = "misconfigured"
)

// RemoteRun is what a run did with the remote cache (RunSummary.Remote).
type RemoteRun struct {
	URL            string `json:"url"`
	Team           string `json:"team"`
	Status         string `json:"status"`
	Read           bool   `json:"read"`
	Write          bool   `json:"write"`
	Signature      bool   `json:"signature"`
	Hits           int    `json:"hits"`
	Misses         int    `json:"misses"`
	Rejected       int    `json:"rejected"` // downloads refused: bad signature or checksum
	Uploads        int    `json:"uploads"`
	UploadFailures int    `json:"uploadFailures"`
	UploadsPending int    `json:"uploadsPending"` // abandoned at the end-of-run timeout
	BytesDown      int64  `json:"bytesDown"`
	BytesUp        int64  `json:"bytesUp"`
}

// RemoteStatus describes the configured remote cache, without its token:
// settings always, the outcome of a check when one was made.
type RemoteStatus struct {
	Configured bool   `json:"configured"`
	URL        string `json:"url,omitempty"`
	Team       string `json:"team,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	// NamespaceSource: config, package.json, git-remote or directory.
	NamespaceSource string `json:"namespaceSource,omitempty"`
	ReadOnly        bool   `json:"readOnly"`
	Signature       bool   `json:"signature"`
	TokenSet        bool   `json:"tokenSet"`
	TimeoutMs       int64  `json:"timeoutMs,omitempty"`
	// Sources says where each setting came from (config or an env name).
	Sources map[string]string `json:"sources,omitempty"`
	Error   string            `json:"error,omitempty"` // a setting that keeps the remote off
	Checked bool              `json:"checked"`
	// Filled by a check (vx cache status, getCacheStats checkRemote).
	Reachable  bool   `json:"reachable"`
	Authorized bool   `json:"authorized"`
	Enabled    bool   `json:"enabled"`
	Status     string `json:"status,omitempty"`
	RTTMs      int64  `json:"rttMs,omitempty"`
	Message    string `json:"message,omitempty"`
	// LastRun is the remote status the latest run recorded.
	LastRunStatus string `json:"lastRunStatus,omitempty"`
}
