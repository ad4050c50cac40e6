// Package records is the encoding vx's own state files under .vx/ are
// written in (the decoded manifests, the repeat memo): unsigned and signed
// varints, and strings prefixed with their length. A Reader fails for
// good at the first malformed value, so a decoder reads a whole record
// and checks once.
package records

import (
	"bytes"
	"encoding/binary"
)

// Writer appends values to its buffer.
type Writer struct{ B bytes.Buffer }

// Uint appends v as an unsigned varint.
func (w *Writer) Uint(v uint64) { w.B.Write(binary.AppendUvarint(nil, v)) }

// Int appends v as a signed varint.
func (w *Writer) Int(v int64) { w.B.Write(binary.AppendVarint(nil, v)) }

// Str appends s after its length.
func (w *Writer) Str(s string) {
	w.Uint(uint64(len(s)))
	w.B.WriteString(s)
}

// Bool appends v as 0 or 1.
func (w *Writer) Bool(v bool) {
	if v {
		w.Uint(1)
	} else {
		w.Uint(0)
	}
}

// Strs appends ss after its count.
func (w *Writer) Strs(ss []string) {
	w.Uint(uint64(len(ss)))
	for _, s := range ss {
		w.Str(s)
	}
}

// Reader reads what a Writer wrote from S. Bad turns true on the first
// malformed value and stays so: every later read answers zero, and S is
// emptied.
type Reader struct {
	S   string
	Bad bool
}

// Fail marks the record malformed.
func (r *Reader) Fail() { r.Bad, r.S = true, "" }

// Uint reads an unsigned varint.
func (r *Reader) Uint() uint64 { return varint(r, binary.Uvarint) }

// Int reads a signed varint.
func (r *Reader) Int() int64 { return varint(r, binary.Varint) }

// varint reads one varint with decode (binary.Uvarint or binary.Varint).
func varint[T uint64 | int64](r *Reader, decode func([]byte) (T, int)) T {
	if r.Bad {
		return 0
	}
	v, n := decode([]byte(r.S[:min(len(r.S), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.Fail()
		return 0
	}
	r.S = r.S[n:]
	return v
}

// Bytes reads the next n bytes as a string (sharing S).
func (r *Reader) Bytes(n uint64) string {
	if r.Bad || n > uint64(len(r.S)) {
		r.Fail()
		return ""
	}
	v := r.S[:n]
	r.S = r.S[n:]
	return v
}

// Str reads a string written after its length.
func (r *Reader) Str() string { return r.Bytes(r.Uint()) }

// Bool reads a 0 or a 1; anything else is malformed.
func (r *Reader) Bool() bool {
	switch r.Uint() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Fail()
	return false
}

// Count reads a count of items of at least one byte each, bounded by
// limit and by what is left to read.
func (r *Reader) Count(limit uint64) int {
	n := r.Uint()
	if n > limit || n > uint64(len(r.S)) {
		r.Fail()
		return 0
	}
	return int(n)
}

// Strs reads what Writer.Strs wrote (nil for none), at most limit.
func (r *Reader) Strs(limit uint64) []string {
	n := r.Count(limit)
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for i := 0; i < n && !r.Bad; i++ {
		out = append(out, r.Str())
	}
	return out
}
