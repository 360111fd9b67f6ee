package chatcompletions

import (
	"strconv"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// A tool call opens a tool_use block when its index first appears; its
// arguments pass as package toolargs streams them.

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
			dst = s.tool.Fragment(dst, s.index, d.arguments)
		}
	}
}

func (s *Stream) openToolCall(dst []byte, d toolCallDelta) []byte {
	dst = s.settle(dst)
	dst = s.carryWaitingParts(dst)
	s.lastTool = d.index
	s.toolCalls++
	s.tool.Reset()
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
// name when it was shortened for the server; bytes that are not UTF-8 as
// U+FFFD, as the whole answer writes them.
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
	return jsonstr.AppendUTF8(dst, lit)
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
