package chatcompletions

import (
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// A tool call opens a tool_use block when its index first appears, and
// each fragment of its arguments leaves at once as an input_json_delta: a
// client that saw nothing until the end would run the tool with {}.
// Arguments that do not start as a JSON object are not forwarded: they are
// kept (up to maxRawArguments) and sent, when the call ends, as the object
// {"raw_arguments": "<the text>"}, so the client still gets a tool_use and
// the model can read what went wrong. Arguments cut short (max_tokens, a
// stream cut) are completed to valid JSON when the call ends; arguments
// that stop being JSON are cut at the first byte that is not (what came
// before it already left) and completed the same way.

// maxRawArguments bounds the arguments kept of one call that is not JSON.
const maxRawArguments = 256 << 10

// rawArgumentsKey names the text of arguments that are not a JSON object.
const rawArgumentsKey = "raw_arguments"

// toolCall is the state of the open tool call's arguments.
type toolCall struct {
	begun bool // the arguments started as an object: fragments pass
	raw   bool // they did not: they are kept
	text  []byte
	tail  jsonTail
}

// toolCallDeltas writes the tool_calls of a chunk's delta.
func (s *Stream) toolCallDeltas(dst, arr []byte) []byte {
	el := jsonscan.Elements(arr, 0)
	for i := 0; ; i++ {
		_, v, ok := el.Item()
		if !ok {
			return dst
		}
		d, ok := s.c.parseToolCall(v, i)
		if !ok {
			continue
		}
		if s.c.bad {
			return s.Fail(dst, "api_error", "the upstream sent a chunk that is not a JSON object")
		}
		if s.open != toolBlock || d.index != s.lastTool {
			if d.index <= s.lastTool {
				return s.Fail(dst, "api_error", "the upstream interleaved the arguments of two tool calls")
			}
			dst = s.openToolCall(dst, d)
		}
		if d.arguments != nil {
			dst = s.arguments(dst, d.arguments)
		}
	}
}

func (s *Stream) openToolCall(dst []byte, d toolCallDelta) []byte {
	dst = s.settle(dst)
	s.lastTool = d.index
	s.toolCalls++
	s.tool.begun, s.tool.raw, s.tool.text, s.tool.tail = false, false, s.tool.text[:0], jsonTail{}
	dst = s.startBlock(dst, toolBlock)
	dst = append(dst, `{"type":"tool_use","id":"`...)
	dst = s.appendToolID(dst, d.id, d.index)
	dst = append(dst, `","name":`...)
	dst = s.appendToolName(dst, d.name)
	return append(dst, `,"input":{}}`+messagesapi.BlockStartEnd...)
}

// appendToolID appends the id of a tool call, reduced to the characters the
// Messages API allows in a tool_use id (some servers use others, "functions.Bash:0"),
// or made from the message id when the server gave none.
func (s *Stream) appendToolID(dst, lit []byte, index int) []byte {
	start := len(dst)
	if lit != nil {
		dst = appendID(dst, lit)
	}
	if len(dst) == start {
		dst = append(dst, "toolu_"...)
		dst = appendID(dst, s.c.id)
		dst = append(dst, '_')
		dst = strconv.AppendInt(dst, int64(index), 10)
	}
	return dst
}

// appendToolName appends the name literal of a tool call, the client's
// name when it was shortened for the server.
func (s *Stream) appendToolName(dst, lit []byte) []byte {
	if lit == nil {
		return append(dst, `""`...)
	}
	if s.opts.ToolNames != nil {
		var name []byte
		name, s.scratch, _ = jsonstr.Value(s.scratch[:0], lit)
		if orig, ok := s.opts.ToolNames[string(name)]; ok {
			return jsonstr.Quote(dst, []byte(orig))
		}
	}
	return append(dst, lit...)
}

// arguments writes a fragment of the open call's arguments, a string
// literal.
func (s *Stream) arguments(dst, lit []byte) []byte {
	t := &s.tool
	var value []byte
	value, s.scratch, _ = jsonstr.Value(s.scratch[:0], lit)
	if !t.begun && !t.raw {
		first := firstNonSpace(value)
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
		t.text = append(t.text, value[:min(len(value), maxRawArguments-len(t.text))]...)
		return dst
	}
	if n := t.tail.feed(value); n < len(value) {
		// Not JSON from here on: the client gets the valid part, which
		// finish completes, and the rest is dropped.
		value, lit = value[:n], nil
		if n == 0 {
			return dst
		}
	}
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.InputDeltaHead)
	if lit != nil {
		dst = append(dst, lit...)
	} else {
		dst = jsonstr.Quote(dst, value)
	}
	return messagesapi.AppendDeltaTail(dst)
}

// finish writes what ends the open call's arguments: the kept text of
// arguments that are not an object, or what completes arguments cut short.
func (t *toolCall) finish(dst []byte, index int) []byte {
	var inner []byte
	switch {
	case t.raw:
		inner = append(append([]byte(`{"`+rawArgumentsKey+`":`), jsonstr.Quote(nil, t.text)...), '}')
	case t.begun:
		inner = t.tail.appendRepair(nil)
	}
	if len(inner) == 0 {
		return dst
	}
	dst = messagesapi.AppendDeltaHead(dst, index, messagesapi.InputDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.Quote(dst, inner))
}

func firstNonSpace(b []byte) int {
	for i, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}

// appendID appends the characters of a string literal that an id may
// hold ([A-Za-z0-9_-]), at most 64.
func appendID(dst, lit []byte) []byte {
	if len(lit) < 2 {
		return dst
	}
	n := 0
	for _, c := range lit[1 : len(lit)-1] {
		if n == 64 {
			break
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			dst = append(dst, c)
			n++
		}
	}
	return dst
}
