package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Rev20260728 is the first stateless revision: no initialize, no session;
// every request carries its revision and the client's capabilities in
// params._meta, and every result says what it is (resultType).
const Rev20260728 = "2026-07-28"

var stateless = []string{Rev20260728}

// StatelessSupported returns the stateless revisions vx serves, newest first.
func StatelessSupported() []string { return slices.Clone(stateless) }

// IsStateless reports whether rev is a stateless revision vx serves.
func IsStateless(rev string) bool { return slices.Contains(stateless, rev) }

// AllSupported returns every revision vx serves, both eras, newest first:
// what server/discover and UnsupportedProtocolVersion errors list.
func AllSupported() []string { return append(StatelessSupported(), supported...) }

// Reserved _meta keys of the 2026-07-28 revision.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// Notifications of the 2026-07-28 revision (its methods are in methods.go).
const (
	NotifySubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
	NotifyResourceUpdated           = "notifications/resources/updated"
)

// Error codes the 2026-07-28 revision defines that vx sends (its third,
// -32021, a missing required client capability, vx has no cause to send).
const (
	CodeHeaderMismatch             = -32020
	CodeUnsupportedProtocolVersion = -32022
)

// Result types of the 2026-07-28 revision.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)

// Cache scopes of a cacheable result.
const (
	CachePublic  = "public"
	CachePrivate = "private"
)

// StatelessMeta is what a stateless request says about itself in _meta.
type StatelessMeta struct {
	ProtocolVersion string
	// HasCapabilities is false when the required clientCapabilities key is
	// absent (an empty object is present).
	HasCapabilities    bool
	ClientCapabilities ClientCapabilities
	ClientInfo         *Implementation
	// LogLevel is "" when the request asked for no log messages.
	LogLevel LoggingLevel
}

// ClientCapabilities is the part of a client's capabilities vx acts on.
type ClientCapabilities struct {
	Elicitation *json.RawMessage `json:"elicitation,omitempty"`
}

// HasStatelessMeta reports whether params carry the 2026-07-28 protocol
// version key in _meta: the mark of a stateless request.
func HasStatelessMeta(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || params[0] != '{' || cannotHoldMeta(params) || json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[MetaProtocolVersion]
	return ok
}

// HasMeta reports whether params have a _meta member, whatever it holds.
func HasMeta(params json.RawMessage) bool {
	var p struct {
		Meta json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || params[0] != '{' || cannotHoldMeta(params) || json.Unmarshal(params, &p) != nil {
		return false
	}
	return p.Meta != nil
}

// cannotHoldMeta reports, without decoding, that params have no _meta
// member: plain ASCII with no escape and no "_meta" in any case (the
// decoder matches member names without regard to case). Most requests of
// a session are such.
func cannotHoldMeta(params []byte) bool {
	for _, c := range params {
		if c >= 0x80 || c == '\\' {
			return false
		}
	}
	for i := 0; i+5 <= len(params); i++ {
		if params[i] == '_' && strings.EqualFold(string(params[i+1:i+5]), "meta") {
			return false
		}
	}
	return true
}

// ParseStatelessMeta reads the per-request fields of params._meta. It fails,
// naming the key, when a value has the wrong type; absent keys are left
// zero for the caller to judge.
func ParseStatelessMeta(params json.RawMessage) (StatelessMeta, error) {
	var out StatelessMeta
	if len(params) == 0 {
		return out, nil
	}
	if params[0] != '{' {
		return out, fmt.Errorf("params must be an object")
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return out, fmt.Errorf("reading params._meta: %v", err)
	}
	if raw, ok := p.Meta[MetaProtocolVersion]; ok {
		if json.Unmarshal(raw, &out.ProtocolVersion) != nil || out.ProtocolVersion == "" {
			return out, fmt.Errorf("_meta[%q] must be a revision string such as %q", MetaProtocolVersion, Rev20260728)
		}
	}
	if raw, ok := p.Meta[MetaClientCapabilities]; ok {
		if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &out.ClientCapabilities) != nil {
			return out, fmt.Errorf("_meta[%q] must be an object (the client's capabilities, {} for none)", MetaClientCapabilities)
		}
		out.HasCapabilities = true
	}
	if raw, ok := p.Meta[MetaClientInfo]; ok {
		var info Implementation
		if json.Unmarshal(raw, &info) != nil {
			return out, fmt.Errorf("_meta[%q] must be an object {name, version}", MetaClientInfo)
		}
		out.ClientInfo = &info
	}
	if raw, ok := p.Meta[MetaLogLevel]; ok {
		if json.Unmarshal(raw, &out.LogLevel) != nil || out.LogLevel.Severity() < 0 {
			return out, fmt.Errorf("_meta[%q] must be one of debug, info, notice, warning, error, critical, alert, emergency", MetaLogLevel)
		}
	}
	return out, nil
}

// UnsupportedVersionData is the data of a -32022 error.
type UnsupportedVersionData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// DiscoverResult answers server/discover (resultType, _meta and the
// caching hints are added by the server, as on every result).
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
}

// SubscriptionFilter is what a subscriptions/listen opts in to.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// ListenParams are the params of subscriptions/listen.
type ListenParams struct {
	Notifications *SubscriptionFilter `json:"notifications"`
}

// ResourceUpdatedParams are the params of notifications/resources/updated.
type ResourceUpdatedParams struct {
	URI string `json:"uri"`
}

// NameCarrier returns the body value a request's Mcp-Name header mirrors
// (params.name or params.uri) and whether the method needs the header.
func NameCarrier(method string, params json.RawMessage) (string, bool) {
	var p struct {
		Name json.RawMessage `json:"name"`
		URI  json.RawMessage `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	var raw json.RawMessage
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		raw = p.Name
	case MethodResourcesRead:
		raw = p.URI
	default:
		return "", false
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s, true
}

const b64Prefix, b64Suffix = "=?base64?", "?="

// EncodeHeaderValue carries v in a header: as is when it is plain visible
// ASCII, else in the revision's =?base64?…?= sentinel form.
func EncodeHeaderValue(v string) string {
	safe := v != "" && strings.TrimSpace(v) == v && !(strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix))
	for i := 0; safe && i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			safe = false
		}
	}
	if safe {
		return v
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + b64Suffix
}

// DecodeHeaderValue undoes EncodeHeaderValue; a malformed sentinel is an
// error.
func DecodeHeaderValue(h string) (string, error) {
	if !strings.HasPrefix(h, b64Prefix) || !strings.HasSuffix(h, b64Suffix) || len(h) < len(b64Prefix)+len(b64Suffix) {
		return h, nil
	}
	b, err := base64.StdEncoding.DecodeString(h[len(b64Prefix) : len(h)-len(b64Suffix)])
	if err != nil {
		return "", fmt.Errorf("the =?base64?…?= value is not valid base64")
	}
	return string(b), nil
}
