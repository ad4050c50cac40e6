// Package jsonrpc is the JSON-RPC 2.0 envelope that vx speaks on every wire:
// message values, the standard error codes, and a decoder that checks the
// envelope of each message and tells a single message from a batch.
//
// Ids are kept as the raw JSON the peer sent (a string or a number) and are
// echoed byte for byte, so a peer never sees its id reformatted.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// version is the only value accepted in a message's "jsonrpc" member.
const version = "2.0"

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// nullID is the id of a response to a message whose id could not be read.
var nullID = json.RawMessage("null")

// Error is a JSON-RPC error object. It is also a Go error, so a handler can
// return one to choose the code its caller sees.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Kind tells what a decoded message is.
type Kind int

const (
	// KindInvalid is a message outside the envelope; Message.Invalid says why.
	KindInvalid Kind = iota
	// KindRequest has a method and an id and is owed a response.
	KindRequest
	// KindNotification has a method and no id and is owed nothing.
	KindNotification
	// KindResponse carries a result or an error for an earlier request.
	KindResponse
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	}
	return "invalid"
}

// Message is one JSON-RPC 2.0 message: a request, a notification or a
// response. A nil ID means the id was absent.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error

	// Invalid is set by Decode on a message outside the envelope; the
	// message is then answered with Invalid under ID (nullID if unreadable).
	Invalid *Error
}

// Kind reports what m is.
func (m *Message) Kind() Kind {
	switch {
	case m.Invalid != nil:
		return KindInvalid
	case m.Method != "" && m.ID != nil:
		return KindRequest
	case m.Method != "":
		return KindNotification
	default:
		return KindResponse
	}
}

// IDKey returns the id as a string usable as a map key ("" when absent).
func (m *Message) IDKey() string { return string(m.ID) }

type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// MarshalJSON encodes m with the "jsonrpc":"2.0" member. A response always
// carries an id (null when m.ID is nil) and exactly one of result or error.
func (m *Message) MarshalJSON() ([]byte, error) {
	if m.Method == "" && m.Error == nil && len(m.ID) > 0 && len(m.Result) > 0 {
		// The hot path, a response: its id came through the decoder and its
		// result from Encode, so both are valid JSON; join them directly
		// rather than encoding (and re-validating) the result again.
		b := make([]byte, 0, len(m.ID)+len(m.Result)+32)
		b = append(b, `{"jsonrpc":"2.0","id":`...)
		b = append(b, m.ID...)
		b = append(b, `,"result":`...)
		b = append(b, m.Result...)
		return append(b, '}'), nil
	}
	w := wireMessage{JSONRPC: version, ID: m.ID, Method: m.Method, Params: m.Params}
	if m.Method == "" {
		if w.ID == nil {
			w.ID = nullID
		}
		w.Error = m.Error
		if m.Error == nil {
			w.Result = m.Result
			if w.Result == nil {
				w.Result = nullID
			}
		}
	}
	return Encode(w)
}

// Encode marshals v (a *Message, a []*Message batch, or any value) without
// HTML escaping, so ids and texts go out byte for byte as they came in.
// Use it, not json.Marshal, for anything written to a peer.
func Encode(v any) ([]byte, error) {
	if m, ok := v.(*Message); ok {
		return m.MarshalJSON()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// NewRequest builds a request; params may be nil.
func NewRequest(id json.RawMessage, method string, params any) (*Message, error) {
	p, err := marshalParams(params)
	if err != nil {
		return nil, err
	}
	return &Message{ID: id, Method: method, Params: p}, nil
}

// NewNotification builds a notification; params may be nil.
func NewNotification(method string, params any) (*Message, error) {
	return NewRequest(nil, method, params)
}

// NewError builds an error response; a nil id is sent as null.
func NewError(id json.RawMessage, e *Error) *Message {
	if id == nil {
		id = nullID
	}
	return &Message{ID: id, Error: e}
}

func marshalParams(params any) (json.RawMessage, error) {
	if params == nil {
		return nil, nil
	}
	if raw, ok := params.(json.RawMessage); ok {
		return raw, nil
	}
	p, err := Encode(params)
	if err != nil {
		return nil, fmt.Errorf("encoding params: %w", err)
	}
	return p, nil
}

// Decode parses one body: a single message or a batch (a JSON array).
// batch reports which. A body that is not JSON yields a -32700 error; an
// empty batch yields -32600. Otherwise every element is returned, those
// outside the envelope with Invalid set, so one bad element does not spoil
// the rest of a batch. A body nested deeper than maxDepth yields -32600.
func Decode(data []byte) (msgs []*Message, batch bool, err *Error) {
	data = bytes.TrimSpace(data)
	if tooDeep(data) {
		return nil, false, errTooDeep()
	}
	if !json.Valid(data) {
		return nil, false, &Error{Code: CodeParseError, Message: "parse error: the body is not valid JSON"}
	}
	if len(data) > 0 && data[0] == '[' {
		var elems []json.RawMessage
		if e := json.Unmarshal(data, &elems); e != nil {
			return nil, true, &Error{Code: CodeParseError, Message: "parse error: " + e.Error()}
		}
		if len(elems) == 0 {
			return nil, true, &Error{Code: CodeInvalidRequest, Message: "invalid request: empty batch"}
		}
		msgs = make([]*Message, len(elems))
		for i, el := range elems {
			msgs[i] = decodeOne(el)
		}
		return msgs, true, nil
	}
	return []*Message{decodeOne(data)}, false, nil
}

func invalid(id json.RawMessage, format string, args ...any) *Message {
	if id == nil {
		id = nullID
	}
	return &Message{ID: id, Invalid: Errorf(CodeInvalidRequest, "invalid request: "+format, args...)}
}

// jsonType names the JSON type of a raw value by its first byte.
func jsonType(raw json.RawMessage) byte {
	if len(raw) == 0 {
		return 0
	}
	switch c := raw[0]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	}
	return '0' // a number
}

func decodeOne(data json.RawMessage) *Message {
	if jsonType(data) != '{' {
		return invalid(nil, "a message must be a JSON object")
	}
	fields, err := readMembers(data)
	if err != nil {
		return invalid(nil, "%v", err)
	}
	m := &Message{}
	// Read the id first so that every later refusal can echo it.
	idRaw, hasID := fields.get("id")
	var id json.RawMessage
	switch t := jsonType(idRaw); {
	case !hasID:
	case t == '"' || t == '0':
		id = idRaw
	case t == 'n':
		// A null id is valid only on an error response, checked below.
	default:
		return invalid(nil, "id must be a string or a number")
	}
	var ver string
	if v, ok := fields.get("jsonrpc"); !ok || stringValue(v, &ver) != nil || ver != version {
		return invalid(id, `"jsonrpc" must be "2.0"`)
	}
	if methodRaw, ok := fields.get("method"); ok {
		if jsonType(methodRaw) != '"' {
			return invalid(id, "method must be a string")
		}
		if err := stringValue(methodRaw, &m.Method); err != nil {
			return invalid(id, "method: %v", err)
		}
		if m.Method == "" {
			return invalid(id, "method must not be empty")
		}
		if hasID && id == nil {
			return invalid(nil, "id must be a string or a number")
		}
		if p, ok := fields.get("params"); ok {
			if t := jsonType(p); t != '{' && t != '[' {
				return invalid(id, "params must be an object or an array")
			}
			m.Params = p
		}
		m.ID = id
		return m
	}
	// A response: exactly one of result and error, and an id.
	res, hasResult := fields.get("result")
	errRaw, hasError := fields.get("error")
	switch {
	case hasResult == hasError:
		return invalid(id, "a message needs a method, or exactly one of result and error")
	case !hasID:
		return invalid(nil, "a response needs an id")
	case hasResult && id == nil:
		return invalid(nil, "a result needs a string or number id")
	}
	if hasError {
		var probe struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
		}
		var e Error
		if jsonType(errRaw) != '{' || json.Unmarshal(errRaw, &probe) != nil ||
			jsonType(probe.Code) != '0' || jsonType(probe.Message) != '"' || json.Unmarshal(errRaw, &e) != nil {
			return invalid(id, "error must be an object with an integer code and a string message")
		}
		m.Error = &e
	} else {
		m.Result = res
	}
	m.ID = id
	if m.ID == nil {
		m.ID = nullID
	}
	return m
}

// AppendString appends s as a JSON string (UTF-8 kept, HTML not escaped);
// s must be valid UTF-8.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
