// Package mcpserver is vxd's Model Context Protocol server, independent of
// any transport: it keeps the tool, resource and prompt catalogs, negotiates
// a revision per session, dispatches JSON-RPC messages to handlers, and
// counts sessions and requests for the daemon's idle shutdown. The HTTP
// endpoint in httpapi feeds it bodies and carries its answers.
package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// Tool is a tool in the catalog: its definition and the code that runs it.
//
// A handler's (value, nil) becomes a result whose structuredContent is the
// value (when it encodes as a JSON object) and whose text content is the
// same JSON. A handler may also return a *mcp.CallToolResult to shape the
// answer itself. A non-nil error becomes an isError result carrying the
// masked error text: it is the tool's refusal, not a protocol error.
type Tool struct {
	Def     mcp.Tool
	Handler func(ctx context.Context, call *Call) (any, error)
}

// Call is one tools/call as a handler sees it. ctx is cancelled when the
// client sends notifications/cancelled for the request or the session ends.
type Call struct {
	Name string
	// Arguments is always a JSON object ({} when the client sent none).
	Arguments json.RawMessage
	// Progress reports progress; it does nothing unless the client asked
	// for progress with a token. total is omitted when zero.
	Progress func(progress, total float64, message string)
	// Log sends a notifications/message when level is at or above the
	// session's logging level.
	Log func(level mcp.LoggingLevel, data any)
	// Elicit asks the person behind a session-era client (elicitation/create
	// on the request's stream); nil when the client declared no elicitation.
	Elicit func(ctx context.Context, p mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Stateless is set for a stateless call (elicit.go): a handler asks the
	// client by returning an *InputRequired.
	Stateless *StatelessCall
}

// Resource is a fixed resource and its reader.
type Resource struct {
	Def  mcp.Resource
	Read func(ctx context.Context) (*mcp.ReadResourceResult, error)
	// Subscribable marks a resource whose updates the server announces
	// (Server.ResourceUpdated) to clients that subscribed to it.
	Subscribable bool
}

// ResourceTemplate is a family of resources. Def.URITemplate may use
// {name} (one path segment) and {+name} (the rest) expressions; vars holds
// their unescaped values.
type ResourceTemplate struct {
	Def  mcp.ResourceTemplate
	Read func(ctx context.Context, uri string, vars map[string]string) (*mcp.ReadResourceResult, error)
	// Subscribable marks the template's resources as announced on update.
	Subscribable bool
	// Complete proposes values for the template's variables, by name.
	Complete map[string]Completer
}

// Prompt is a prompt template and its renderer.
type Prompt struct {
	Def mcp.Prompt
	Get func(ctx context.Context, args map[string]string) (*mcp.GetPromptResult, error)
	// Complete proposes values for arguments, by argument name.
	Complete map[string]Completer
}

// Options configure a Server; nil means all defaults.
type Options struct {
	Name, Version, Instructions string
	// Mask hides secrets; it is applied to every error text and every
	// isError text before it leaves the server.
	Mask func(string) string
	// MaskJSON hides secrets in a JSON text on its decoded values; it is
	// applied to every result before it leaves the server, so no answer
	// carries a value in clear however it was spelt or escaped.
	MaskJSON func([]byte) []byte
	// Logger receives one debug line per request (method and duration,
	// never arguments). The zero value logs nothing.
	Logger zerolog.Logger
	// MaxSessions caps live sessions; a new session ends the idlest one
	// first. Zero means no cap.
	MaxSessions int
	// OnSession, when set, is told of every session opened and closed
	// (for the daemon's live feed). It must not block.
	OnSession func(id string, opened bool)
	// Limits bound batches and answers; nil means the defaults.
	Limits *Limits
	// SessionIdle ends a session with no request in flight, no open
	// stream and no request for this long (default 30m; <0 never).
	SessionIdle time.Duration
}

// Stats is a snapshot of the server's activity.
type Stats struct {
	Sessions     int       `json:"sessions"`
	Requests     uint64    `json:"requests"`
	InFlight     int       `json:"inFlight"`
	LastActivity time.Time `json:"lastActivity"`
}

// Server is an MCP server. It is safe for concurrent use.
type Server struct {
	name, version, instructions string
	mask                        func(string) string
	maskJSON                    func([]byte) []byte
	log                         zerolog.Logger
	maxSessions                 int
	onSession                   func(id string, opened bool)
	limits                      Limits
	sessionIdle                 time.Duration
	answers                     *answerPool   // SharedAnswerBytes; nil: no bound
	calls                       chan struct{} // CallsAtOnce's slots; nil: no bound

	mu        sync.Mutex
	tools     []Tool
	resources []Resource
	templates []compiledTemplate
	prompts   []Prompt
	sessions  map[string]*Session
	requests  uint64
	inFlight  int
	last      time.Time
	listens   *listenSet // the stateless era's listen streams (stateless.go)
}

type compiledTemplate struct {
	ResourceTemplate
	re *regexp.Regexp
}

// New returns a server with empty catalogs.
func New(opts *Options) *Server {
	if opts == nil {
		opts = &Options{}
	}
	s := &Server{
		name:         opts.Name,
		version:      opts.Version,
		instructions: opts.Instructions,
		mask:         opts.Mask,
		maskJSON:     opts.MaskJSON,
		log:          opts.Logger,
		maxSessions:  opts.MaxSessions,
		onSession:    opts.OnSession,
		limits:       opts.Limits.withDefaults(),
		sessionIdle:  opts.SessionIdle,
		sessions:     map[string]*Session{},
		last:         time.Now(),
	}
	if s.sessionIdle == 0 {
		s.sessionIdle = defaultSessionIdle
	}
	if n := s.limits.SharedAnswerBytes; n > 0 {
		s.answers = &answerPool{left: n}
	}
	if n := s.limits.CallsAtOnce; n > 0 {
		s.calls = make(chan struct{}, n)
	}
	if s.name == "" {
		s.name = "vxd"
	}
	if s.mask == nil {
		s.mask = func(s string) string { return s }
	}
	if s.maskJSON == nil {
		s.maskJSON = func(b []byte) []byte { return b }
	}
	return s
}

// SetTools replaces the tool catalog at once. When the definitions changed,
// every initialized session is sent notifications/tools/list_changed.
func (s *Server) SetTools(tools []Tool) {
	s.mu.Lock()
	changed := !sameDefs(s.tools, tools, func(t Tool) any { return t.Def })
	s.tools = append([]Tool(nil), tools...)
	s.mu.Unlock()
	if changed {
		s.broadcast(mcp.NotifyToolsListChanged)
	}
}

// SetResources replaces the resources and templates at once, announcing a
// change with notifications/resources/list_changed.
func (s *Server) SetResources(resources []Resource, templates []ResourceTemplate) error {
	compiled := make([]compiledTemplate, len(templates))
	for i, t := range templates {
		re, err := compileTemplate(t.Def.URITemplate)
		if err != nil {
			return fmt.Errorf("compiling resource template %q: %w", t.Def.URITemplate, err)
		}
		compiled[i] = compiledTemplate{t, re}
	}
	s.mu.Lock()
	changed := !sameDefs(s.resources, resources, func(r Resource) any { return r.Def }) ||
		!sameDefs(s.templates, compiled, func(t compiledTemplate) any { return t.Def })
	s.resources = append([]Resource(nil), resources...)
	s.templates = compiled
	s.mu.Unlock()
	if changed {
		s.broadcast(mcp.NotifyResourcesChanged)
	}
	return nil
}

// SetPrompts replaces the prompt catalog at once, announcing a change with
// notifications/prompts/list_changed.
func (s *Server) SetPrompts(prompts []Prompt) {
	s.mu.Lock()
	changed := !sameDefs(s.prompts, prompts, func(p Prompt) any { return p.Def })
	s.prompts = append([]Prompt(nil), prompts...)
	s.mu.Unlock()
	if changed {
		s.broadcast(mcp.NotifyPromptsListChanged)
	}
}

func sameDefs[T any](a, b []T, def func(T) any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, _ := json.Marshal(def(a[i]))
		y, _ := json.Marshal(def(b[i]))
		if !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

func (s *Server) broadcast(method string) {
	msg, _ := jsonrpc.NewNotification(method, nil)
	for _, ss := range s.sessionList() {
		if ss.Revision() != "" && ss.notify != nil {
			ss.notify(msg)
		}
	}
	s.notifyListeners(method)
}

// Stats reports sessions, requests served and the last activity.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Sessions: len(s.sessions), Requests: s.requests, InFlight: s.inFlight, LastActivity: s.last}
}

// NewSession starts a session. notify receives the server-initiated
// messages (list_changed notifications) for it; it must not block for long.
// When MaxSessions is reached the idlest session is ended first: the one
// with nothing in flight and the oldest activity.
func (s *Server) NewSession(notify func(*jsonrpc.Message)) *Session {
	var idb [16]byte
	_, _ = rand.Read(idb[:])
	ss := &Session{
		id:       hex.EncodeToString(idb[:]),
		srv:      s,
		notify:   notify,
		level:    mcp.LevelInfo,
		inflight: map[string]context.CancelFunc{},
		done:     make(chan struct{}),
		last:     time.Now(),
	}
	var victim *Session
	s.mu.Lock()
	if s.maxSessions > 0 && len(s.sessions) >= s.maxSessions {
		// The victim leaves the table under the same lock that admits the
		// newcomer, so concurrent creators never pick the same one and the
		// cap holds.
		victim = s.idlest()
		delete(s.sessions, victim.id)
	}
	s.sessions[ss.id] = ss
	s.last = time.Now()
	s.mu.Unlock()
	ss.armExpiry()
	if victim != nil {
		s.log.Info().Str("session", victim.id).Msg("session cap reached: ending the idlest session")
		victim.Close()
	}
	if s.onSession != nil {
		s.onSession(ss.id, true)
	}
	return ss
}

// RequestSession returns a session for one HTTP request of a server that keeps
// no sessions (stateless replicas behind a load balancer): it is not
// registered with the server, answers initialize, and otherwise speaks
// revision, the one the request's MCP-Protocol-Version header names.
func (s *Server) RequestSession(revision string) *Session {
	return &Session{
		srv:      s,
		level:    mcp.LevelInfo,
		inflight: map[string]context.CancelFunc{},
		done:     make(chan struct{}),
		last:     time.Now(),
		assumed:  revision,
	}
}

// idlest picks the session to evict; s.mu is held.
func (s *Server) idlest() *Session {
	var best *Session
	var bestBusy bool
	var bestLast time.Time
	for _, ss := range s.sessions {
		ss.mu.Lock()
		busy, last := len(ss.inflight) > 0, ss.last
		ss.mu.Unlock()
		if best == nil || (bestBusy && !busy) || (busy == bestBusy && last.Before(bestLast)) {
			best, bestBusy, bestLast = ss, busy, last
		}
	}
	return best
}

// Session returns the live session with that id, or nil.
func (s *Server) Session(id string) *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// Close ends every session.
func (s *Server) Close() {
	s.mu.Lock()
	var all []*Session
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.Close()
	}
	s.endListeners()
}

// compileTemplate turns a URI template into an anchored regexp.
func compileTemplate(tmpl string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("unclosed expression")
		}
		b.WriteString(regexp.QuoteMeta(rest[:i]))
		name := rest[i+1 : i+j]
		pattern := `[^/?#]+`
		if strings.HasPrefix(name, "+") {
			name, pattern = name[1:], `.+`
		}
		if !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(name) {
			return nil, fmt.Errorf("expression {%s} is not a simple variable name", name)
		}
		fmt.Fprintf(&b, "(?P<%s>%s)", name, pattern)
		rest = rest[i+j+1:]
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func matchTemplate(re *regexp.Regexp, uri string) (map[string]string, bool) {
	m := re.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vars := map[string]string{}
	for i, name := range re.SubexpNames() {
		if name == "" {
			continue
		}
		v, err := url.PathUnescape(m[i])
		if err != nil {
			v = m[i]
		}
		vars[name] = v
	}
	return vars, true
}

// sessionList is the sessions open now, taken under the lock so that a
// notification can go to each without holding it.
func (s *Server) sessionList() []*Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	var list []*Session
	for _, ss := range s.sessions {
		list = append(list, ss)
	}
	return list
}
