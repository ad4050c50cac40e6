package jsonc

import (
	"encoding/json"
	"strconv"

	"github.com/tailscale/hujson"
)

// Kind is the type of a JSON value.
type Kind int

const (
	Object Kind = iota
	Array
	String
	Number
	Bool
	nullKind
)

func (k Kind) String() string {
	return [...]string{"an object", "an array", "a string", "a number", "a boolean", "null"}[k]
}

// Node is one value of a document with the byte offsets it spans, built
// from hujson's value tree.
type Node struct {
	Kind     Kind
	Off, End int      // the value's first byte, and the byte after its last
	Str      string   // a string's value, or a number's text
	Bool     bool     // a boolean's value
	Members  []Member // an object's members in source order
	Items    []*Node  // an array's items
}

// Member is one key of an object and its value.
type Member struct {
	Key    string
	KeyOff int // the key's opening quote
	Val    *Node
}

func build(v *hujson.Value) *Node {
	n := &Node{Off: v.StartOffset, End: v.EndOffset}
	switch t := v.Value.(type) {
	case *hujson.Object:
		n.Kind = Object
		for i := range t.Members {
			m := &t.Members[i]
			n.Members = append(n.Members, Member{Key: m.Name.Value.(hujson.Literal).String(), KeyOff: m.Name.StartOffset, Val: build(&m.Value)})
		}
	case *hujson.Array:
		n.Kind = Array
		for i := range t.Elements {
			n.Items = append(n.Items, build(&t.Elements[i]))
		}
	case hujson.Literal:
		switch t.Kind() {
		case '"':
			n.Kind, n.Str = String, t.String()
		case '0':
			n.Kind, n.Str = Number, string(t)
		case 't', 'f':
			n.Kind, n.Bool = Bool, t.Bool()
		default:
			n.Kind = nullKind
		}
	}
	return n
}

// Get returns the value of key (the last one when a key repeats), or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Key == key {
			return n.Members[i].Val
		}
	}
	return nil
}

// Strings returns the items of an array of strings; ok is false when n is
// not one.
func (n *Node) Strings() (out []string, ok bool) {
	if n == nil || n.Kind != Array {
		return nil, false
	}
	out = []string{}
	for _, it := range n.Items {
		if it.Kind != String {
			return nil, false
		}
		out = append(out, it.Str)
	}
	return out, true
}

// Value is n as encoding/json would decode it into an any (numbers as
// json.Number).
func (n *Node) Value() any {
	switch n.Kind {
	case Object:
		m := map[string]any{}
		for _, mb := range n.Members {
			m[mb.Key] = mb.Val.Value()
		}
		return m
	case Array:
		a := make([]any, len(n.Items))
		for i, it := range n.Items {
			a[i] = it.Value()
		}
		return a
	case String:
		return n.Str
	case Number:
		return json.Number(n.Str)
	case Bool:
		return n.Bool
	}
	return nil
}

// Decode stores n into v through encoding/json.
func (n *Node) Decode(v any) error {
	b, err := json.Marshal(n.Value())
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Path is one value of a document and where it is: its dotted path
// ("tasks.build.cache", "projects[2]"; "" for the root) and, for an
// object member, the offset of its key (-1 otherwise).
type Path struct {
	Path   string
	Key    string // the member's key ("" for the root and array items)
	KeyOff int
	*Node
}

// Paths lists every value under n, n included, in document order.
func (n *Node) Paths() []Path {
	var out []Path
	var walk func(path, key string, keyOff int, v *Node)
	walk = func(path, key string, keyOff int, v *Node) {
		out = append(out, Path{Path: path, Key: key, KeyOff: keyOff, Node: v})
		for _, m := range v.Members {
			p := m.Key
			if path != "" {
				p = path + "." + m.Key
			}
			walk(p, m.Key, m.KeyOff, m.Val)
		}
		for i, it := range v.Items {
			walk(path+"["+strconv.Itoa(i)+"]", "", -1, it)
		}
	}
	walk("", "", -1, n)
	return out
}

// Innermost is the deepest of paths whose value spans the byte at off.
func Innermost(paths []Path, off int) (Path, bool) {
	var best Path
	found := false
	for _, p := range paths {
		if p.Off <= off && off < p.End && (!found || p.Off >= best.Off) {
			best, found = p, true
		}
	}
	return best, found
}
