package mcpserver

import (
	"encoding/json"

	"github.com/vzn/vx/protocol/jsonrpc"
	"github.com/vzn/vx/protocol/mcp"
)

// maxSubscriptions bounds the resources one session follows.
const maxSubscriptions = 128

// subscribe serves resources/subscribe and resources/unsubscribe (session
// era; 2026-07-28 clients name the resources in subscriptions/listen).
func (ss *Session) subscribe(params json.RawMessage, on bool) (any, error) {
	var p mcp.ReadResourceParams
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams("resources/subscribe needs a uri")
	}
	if on && !ss.srv.subscribable(p.URI) {
		return nil, invalidParams("%s announces no updates; subscribable: the resources and templates marked so in resources/list and resources/templates/list", p.URI)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !on {
		delete(ss.subs, p.URI)
		return struct{}{}, nil
	}
	if ss.subs == nil {
		ss.subs = map[string]bool{}
	}
	if !ss.subs[p.URI] && len(ss.subs) >= maxSubscriptions {
		return nil, invalidParams("this session already follows %d resources; unsubscribe one first", maxSubscriptions)
	}
	ss.subs[p.URI] = true
	return struct{}{}, nil
}

// ResourceUpdated announces that the resource at uri changed: a
// notifications/resources/updated to every session subscribed to it and
// every listen stream that named it.
//
// The notification is made only for a session that wants it: a run of
// 10,000 tasks announces 10,000 task logs, which nobody follows mostly.
func (s *Server) ResourceUpdated(uri string) {
	var msg *jsonrpc.Message
	for _, ss := range s.sessionList() {
		ss.mu.Lock()
		want := ss.subs[uri] && ss.revision != "" && ss.notify != nil
		ss.mu.Unlock()
		if !want {
			continue
		}
		if msg == nil {
			var err error
			if msg, err = jsonrpc.NewNotification(mcp.NotifyResourceUpdated, mcp.ResourceUpdatedParams{URI: uri}); err != nil {
				return
			}
		}
		ss.notify(msg)
	}
	s.eachListener(func(f mcp.SubscriptionFilter) bool {
		for _, u := range f.ResourceSubscriptions {
			if u == uri {
				return true
			}
		}
		return false
	}, mcp.NotifyResourceUpdated, map[string]any{"uri": uri})
}

// Following reports whether any session follows a resource, or any listen
// stream is open: ResourceUpdated would announce something. vxd's feed
// asks it before it decodes a shell run's task events for the
// announcements.
func (s *Server) Following() bool {
	for _, ss := range s.sessionList() {
		ss.mu.Lock()
		n := len(ss.subs)
		ss.mu.Unlock()
		if n > 0 {
			return true
		}
	}
	ls := s.listenStreams()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return len(ls.listeners) > 0
}
