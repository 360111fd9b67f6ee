// Package toolargs turns the arguments of another API's function call, a
// JSON text the model wrote, into the input of a Messages tool_use, which
// must be a JSON object: streamed fragment by fragment as input_json_delta
// events (Stream), or whole (Input).
//
// Each fragment leaves at once: a client that saw nothing until the end
// would run the tool with {}. Arguments that do not start as a JSON object
// are not forwarded: they are kept (up to MaxRaw) and sent, when the call
// ends, as the object {"raw_arguments": "<the text>"}, so the client still
// gets a tool_use and the model can read what went wrong. Arguments cut
// short (max_tokens, a stream cut) are completed to valid JSON when the
// call ends; arguments that stop being JSON are cut at the first byte that
// is not (what came before it already left) and completed the same way.
package toolargs

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// MaxRaw bounds the arguments kept of one call that is not JSON.
const MaxRaw = 256 << 10

// RawKey names the text of arguments that are not a JSON object.
const RawKey = "raw_arguments"

// Stream is the state of one streamed call's arguments. The zero value is
// a call whose arguments have not begun; Reset makes it one again.
type Stream struct {
	begun   bool // the arguments started as an object: fragments pass
	raw     bool // they did not: they are kept
	text    []byte
	tail    jsonTail
	scratch []byte
}

// Reset starts another call.
func (t *Stream) Reset() {
	t.begun, t.raw, t.text, t.tail = false, false, t.text[:0], jsonTail{}
}

// Fragment appends the input_json_delta of the block at index for a
// fragment of the arguments, the string literal lit, or nothing when it
// holds back.
func (t *Stream) Fragment(dst []byte, index int, lit []byte) []byte {
	var value []byte
	value, t.scratch, _ = jsonstr.Value(t.scratch[:0], lit)
	if !t.begun && !t.raw {
		first := FirstNonSpace(value)
		switch {
		case first < 0:
			return dst
		case value[first] == '{':
			t.begun = true
			value = value[first:]
			lit = nil
		default:
			t.raw = true
		}
	}
	if t.raw {
		t.text = append(t.text, value[:min(len(value), MaxRaw-len(t.text))]...)
		return dst
	}
	if n := t.tail.feed(value); n < len(value) {
		// Not JSON from here on: the client gets the valid part, which
		// Finish completes, and the rest is dropped.
		value, lit = value[:n], nil
		if n == 0 {
			return dst
		}
	}
	dst = messagesapi.AppendDeltaHead(dst, index, messagesapi.InputDeltaHead)
	if lit != nil {
		dst = jsonstr.AppendUTF8(dst, lit) // as value is: bytes not UTF-8 as U+FFFD
	} else {
		dst = jsonstr.Quote(dst, value)
	}
	return messagesapi.AppendDeltaTail(dst)
}

// Begun reports whether any fragment of the arguments was taken.
func (t *Stream) Begun() bool { return t.begun || t.raw }

// Finish appends what ends the call's arguments at index: the kept text of
// arguments that are not an object, or what completes arguments cut short.
func (t *Stream) Finish(dst []byte, index int) []byte {
	var inner []byte
	switch {
	case t.raw:
		inner = append(append([]byte(`{"`+RawKey+`":`), jsonstr.Quote(nil, t.text)...), '}')
	case t.begun:
		inner = t.tail.appendRepair(nil)
	}
	if len(inner) == 0 {
		return dst
	}
	dst = messagesapi.AppendDeltaHead(dst, index, messagesapi.InputDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.Quote(dst, inner))
}

// MaxDepth is the nesting a tool_use input may have: a Messages answer
// holds it three levels down (the message, its content, the block), and a
// JSON reader follows 10000 (encoding/json's bound, and jsonscan's).
const MaxDepth = 10000 - 3

// Input returns the input object for a call's whole arguments: args when
// they are one (nested at most MaxDepth), completed when cut short, else
// {"raw_arguments": args}; {} for none.
func Input(args []byte) []byte {
	first := FirstNonSpace(args)
	if first < 0 {
		return []byte("{}")
	}
	if args[first] == '{' {
		if jsonscan.Valid(args) {
			if Fits(args) {
				return args
			}
			return Raw(args)
		}
		var t jsonTail
		t.feed(args)
		if fixed := t.appendRepair(append([]byte(nil), args...)); jsonscan.Valid(fixed) {
			return fixed
		}
	}
	return Raw(args)
}

// Raw returns the input that keeps arguments as their text:
// {"raw_arguments": "<args>"}.
func Raw(args []byte) []byte {
	return append(jsonstr.Quote([]byte(`{"`+RawKey+`":`), args), '}')
}

// Fits reports whether the JSON text args nests at most MaxDepth levels.
func Fits(args []byte) bool {
	depth, inString, escape := 0, false, false
	for _, c := range args {
		switch {
		case escape:
			escape = false
		case inString:
			escape, inString = c == '\\', c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// FirstNonSpace returns the index of the first byte of b that is not JSON
// whitespace, or -1.
func FirstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}
