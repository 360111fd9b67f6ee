package jsonscan

import (
	"iter"
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// Value is a JSON value as it is in its document: a slice of it, never a
// copy. It is the way to read a few fields of a small document known to be
// valid (see Valid), such as a chat-completions request or answer: Get
// walks objects, Elements arrays, and only Str and Text decode, allocating
// the strings they return. On a document that is not valid JSON a Value
// reads as far as it can follow and is absent past that. The zero Value is
// absent.
type Value []byte

// Kind is what a Value holds.
type Kind uint8

// The kinds of values.
const (
	Absent Kind = iota
	Null
	False
	True
	Number
	String
	Object
	Array
)

// Parse returns the value b holds, without the white space around it.
func Parse(b []byte) Value {
	i := SkipSpace(b, 0)
	end, ok := SkipValue(b, i)
	if !ok {
		return nil
	}
	return Value(b[i:end])
}

// Kind returns the kind of v.
func (v Value) Kind() Kind {
	if len(v) == 0 {
		return Absent
	}
	switch v[0] {
	case 'n':
		return Null
	case 'f':
		return False
	case 't':
		return True
	case '"':
		return String
	case '{':
		return Object
	case '[':
		return Array
	}
	return Number
}

// Exists reports whether v holds a value, null included.
func (v Value) Exists() bool { return len(v) > 0 }

// Get returns the member of v found by following names, one object at a
// time; absent when v is not an object or a name is not there. A member
// given twice counts as its last occurrence, as encoding/json reads it.
func (v Value) Get(names ...string) Value {
	for _, name := range names {
		v = v.member(name)
	}
	return v
}

func (v Value) member(name string) Value {
	if v.Kind() != Object {
		return nil
	}
	var found Value
	var buf [32]byte
	it := Members(v, 0)
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		if string(Name(key, &buf)) == name {
			found = Value(value)
		}
	}
	return found
}

// Elements yields the elements of v, none when v is not an array.
func (v Value) Elements() iter.Seq[Value] {
	return func(yield func(Value) bool) {
		if v.Kind() != Array {
			return
		}
		it := Elements(v, 0)
		for _, value, ok := it.Item(); ok; _, value, ok = it.Item() {
			if !yield(Value(value)) {
				return
			}
		}
	}
}

// Members yields the names (decoded) and values of v's members, none when
// v is not an object.
func (v Value) Members() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		if v.Kind() != Object {
			return
		}
		it := Members(v, 0)
		for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
			name, _ := jsonstr.Append(nil, key)
			if !yield(string(name), Value(value)) {
				return
			}
		}
	}
}

// Index returns the i-th element of v, absent when there is none.
func (v Value) Index(i int) Value {
	n := 0
	for e := range v.Elements() {
		if n == i {
			return e
		}
		n++
	}
	return nil
}

// Len returns how many elements v has, 0 when v is not an array.
func (v Value) Len() int {
	n := 0
	for range v.Elements() {
		n++
	}
	return n
}

// Name returns the string v holds, for a switch over known names, decoded
// into buf only when it has escapes (see Name); nil when v is not a string.
func (v Value) Name(buf *[32]byte) []byte { return Name(v, buf) }

// Is reports whether v is the string s, without decoding it into new
// memory when it has no escapes.
func (v Value) Is(s string) bool {
	if v.Kind() != String {
		return false
	}
	var buf [32]byte
	return string(Name(v, &buf)) == s
}

// Pick fills into[i] with the member called names[i] of the object v, in
// one walk over it (a member given twice: its last occurrence); members
// of other names are passed over. A caller that reads several members of
// a large object reads them this way, not with one Get each.
func (v Value) Pick(names []string, into []Value) {
	clear(into)
	if v.Kind() != Object {
		return
	}
	var buf [32]byte
	it := Members(v, 0)
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		name := Name(key, &buf)
		for i, n := range names {
			if string(name) == n {
				into[i] = Value(value)
			}
		}
	}
}

// Str returns the string v holds, decoded; "" when v is not a string.
func (v Value) Str() string { return string(v.Text()) }

// Text is Str as bytes, nil when v is not a string.
func (v Value) Text() []byte {
	if v.Kind() != String {
		return nil
	}
	s, _ := jsonstr.Append(nil, v)
	return s
}

// Bool reports whether v is true.
func (v Value) Bool() bool { return v.Kind() == True }

// Int returns the number v holds, its fraction cut off; 0 when v is not a
// number or too large for an int64.
func (v Value) Int() int64 {
	if v.Kind() != Number {
		return 0
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f >= 1<<63 || f < -(1<<63) {
		return 0
	}
	return int64(f)
}
