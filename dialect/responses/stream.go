package responses

import (
	"bytes"
	"crypto/sha256"
	"hash"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolargs"
)

// kind is the kind of the open block.
type kind uint8

const (
	none kind = iota
	// reasoningItem: a reasoning item began, whose thinking block opens
	// with its first text, or when it is done with encrypted content: an
	// item with neither would be an empty block no request could use.
	reasoningItem
	thinkingBlock
	textBlock
	toolBlock
)

// Stream turns the events of a Responses stream into the events of a
// Messages stream, as they come: message_start with the first; a thinking
// block per reasoning item, its summary (or reasoning text) streamed as
// thinking, its id and encrypted content sealed in the signature when the
// item is done; a text block per message item; a tool_use per function
// call, its arguments streamed as input_json_delta; message_delta and
// message_stop with response.completed or response.incomplete. An error
// event or response.failed ends the stream with an error event; events of
// other types are passed over. It implements messagesapi.Translator.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	opts     AnswerOptions
	modelLit []byte

	started, ended bool
	index, blocks  int
	open           kind
	calls          int

	// The open reasoning item: its text's hash, its id, parts and
	// encrypted content, and whether any of its text came.
	think     hash.Hash
	reasoning item
	texted    bool
	// textSeen says the open message item's text came as deltas.
	textSeen bool
	tool     toolargs.Stream

	scratch, payload, id, encrypted []byte
}

// NewStream returns a Stream for one answer.
func NewStream(opts AnswerOptions) *Stream {
	return &Stream{opts: opts, modelLit: jsonstr.Quote(nil, []byte(opts.Model)), think: sha256.New()}
}

// Done reports whether the stream has ended.
func (s *Stream) Done() bool { return s.ended }

// Chunk appends the events for the data of one event.
func (s *Stream) Chunk(dst, data []byte) []byte {
	if s.ended {
		return dst
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return dst
	}
	ev, ok := readEvent(data)
	if !ok || data[0] != '{' {
		return s.Fail(dst, "api_error", "the upstream sent an event that is not a JSON object")
	}
	switch string(ev.typ) {
	case "error":
		return s.Fail(dst, errorType(ev.code, ev.er), streamErrorMessage(ev))
	case "response.failed":
		e := ev.response.Get("error")
		return s.Fail(dst, errorType(e.Get("code"), nil), failedMessage(e))
	}
	if !s.started {
		s.started = true
		dst = messagesapi.AppendMessageStart(dst, messageID(ev.response.Get("id")), s.modelLit)
	}
	switch string(ev.typ) {
	case "response.output_item.added":
		return s.itemAdded(dst, ev.item)
	case "response.reasoning_summary_part.added":
		return s.summaryPart(dst)
	case "response.reasoning_summary_text.delta":
		return s.reasoningDelta(dst, ev.delta, false)
	case "response.reasoning_text.delta":
		return s.reasoningDelta(dst, ev.delta, true)
	case "response.output_text.delta", "response.refusal.delta":
		return s.textDelta(dst, ev.delta)
	case "response.function_call_arguments.delta":
		if s.open == toolBlock && literal(ev.delta) {
			dst = s.tool.Fragment(dst, s.index, ev.delta)
		}
		return dst
	case "response.output_item.done":
		return s.itemDone(dst, ev.item)
	case "response.completed", "response.incomplete":
		return s.end(dst, ev.response)
	}
	return dst
}

// End ends the stream when the upstream's body ended before the response
// did.
func (s *Stream) End(dst []byte) []byte {
	if s.ended {
		return dst
	}
	return messagesapi.AppendCut(dst, s.started, &s.ended)
}

// Fail appends an error event and ends the stream.
func (s *Stream) Fail(dst []byte, typ, msg string) []byte {
	return messagesapi.AppendFailure(dst, &s.ended, typ, msg)
}

// end closes the last block and writes message_delta and message_stop.
func (s *Stream) end(dst []byte, resp jsonscan.Value) []byte {
	dst = s.closeOpen(dst)
	s.ended = true
	return messagesapi.AppendMessageEnd(dst, stopReason(resp, s.calls), usageOf(resp.Get("usage"), s.opts.InputTokens))
}

// itemAdded opens the block of an output item: a thinking block for a
// reasoning item, a tool_use for a function call; a message's text block
// opens with its first text.
func (s *Stream) itemAdded(dst []byte, it jsonscan.Value) []byte {
	var typ [32]byte
	switch string(it.Get("type").Name(&typ)) {
	case "reasoning":
		dst = s.beginReasoning(dst)
		s.id = appendValue(s.id[:0], it.Get("id"))
	case "message":
		dst = s.closeOpen(dst)
	case "function_call":
		dst = s.openTool(dst, it)
	}
	return dst
}

// itemDone ends the block of an output item, with what the item holds that
// no delta brought: the summary, text or arguments of a server that sends
// them whole, and a reasoning item's encrypted content.
func (s *Stream) itemDone(dst []byte, it jsonscan.Value) []byte {
	var typ [32]byte
	switch string(it.Get("type").Name(&typ)) {
	case "reasoning":
		if s.open != thinkingBlock && s.open != reasoningItem {
			dst = s.beginReasoning(dst)
		}
		if !s.texted {
			if dst = s.wholeReasoning(dst, it); s.ended {
				return dst // a text that is no valid string failed the stream
			}
		}
		if id := it.Get("id"); id.Kind() == jsonscan.String {
			s.id = appendValue(s.id[:0], id)
		}
		s.encrypted = appendValue(s.encrypted[:0], it.Get("encrypted_content"))
		if len(s.encrypted) > 0 {
			dst = s.openThinking(dst)
		}
		return s.closeOpen(dst)
	case "message":
		if !s.textSeen {
			for p := range it.Get("content").Elements() {
				if dst = s.textDelta(dst, textOf(p)); s.ended {
					return dst
				}
			}
		}
		s.textSeen = false
		return s.closeOpen(dst)
	case "function_call":
		if s.open != toolBlock {
			dst = s.openTool(dst, it)
		}
		if args := it.Get("arguments"); !s.tool.Begun() && literal(args) {
			dst = s.tool.Fragment(dst, s.index, args)
		}
		return s.closeOpen(dst)
	}
	return dst
}

// wholeReasoning writes the text of a reasoning item that came whole, up
// to a text that fails the stream.
func (s *Stream) wholeReasoning(dst []byte, it jsonscan.Value) []byte {
	for p := range it.Get("summary").Elements() {
		dst = s.summaryPart(dst)
		if dst = s.reasoningDelta(dst, p.Get("text"), false); s.ended {
			return dst
		}
	}
	if !s.texted {
		for p := range it.Get("content").Elements() {
			if dst = s.reasoningDelta(dst, p.Get("text"), true); s.ended {
				return dst
			}
		}
	}
	return dst
}

// summaryPart starts a part of the open reasoning item's summary: after
// the first, a blank line.
func (s *Stream) summaryPart(dst []byte) []byte {
	if s.open != thinkingBlock && s.open != reasoningItem {
		dst = s.beginReasoning(dst)
	}
	r := &s.reasoning
	if len(r.parts) == 0 || r.content || len(r.parts) == maxParts {
		return dst
	}
	dst = s.openThinking(dst)
	r.parts = append(r.parts, 0)
	s.think.Write([]byte(partSeparator))
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.ThinkingDeltaHead)
	return messagesapi.AppendDeltaTail(append(dst, `"\n\n"`...))
}

// reasoningDelta writes text of the open reasoning item: of its summary,
// or of its reasoning content. The first kind that comes is the block's
// text; the other is passed over, and so is a text that is no string (none,
// a number), as a whole answer passes it over.
func (s *Stream) reasoningDelta(dst []byte, lit jsonscan.Value, content bool) []byte {
	if lit.Kind() != jsonscan.String {
		return dst
	}
	if !literal(lit) {
		return s.Fail(dst, "api_error", errNotLiteral)
	}
	dst = s.openThinking(dst)
	r := &s.reasoning
	if !s.texted {
		s.texted, r.content = true, content
		if len(r.parts) == 0 {
			r.parts = append(r.parts, 0)
		}
	} else if r.content != content {
		return dst
	}
	var v []byte
	v, s.scratch, _ = jsonstr.Value(s.scratch[:0], lit)
	s.think.Write(v)
	r.parts[len(r.parts)-1] += len(v)
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.ThinkingDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.AppendUTF8(dst, lit))
}

// errNotLiteral ends a stream whose text is a string that is not valid JSON
// (a raw control character): a whole answer with it is refused as not
// JSON, and the stream is refused alike, never passed over without a word,
// and nothing follows the error.
const errNotLiteral = "the upstream sent text that is not a valid JSON string"

// textDelta writes text of a message item; bytes that are not UTF-8 as
// U+FFFD, the same whole and streamed (see jsonstr.AppendUTF8). Empty text,
// and text that is no string, is passed over.
func (s *Stream) textDelta(dst []byte, lit jsonscan.Value) []byte {
	if lit.Kind() != jsonscan.String || len(lit) <= 2 {
		return dst
	}
	if !literal(lit) {
		return s.Fail(dst, "api_error", errNotLiteral)
	}
	if s.open != textBlock {
		dst = s.closeOpen(dst)
		dst = s.startBlock(dst, textBlock)
		dst = append(dst, messagesapi.TextStart+messagesapi.BlockStartEnd...)
	}
	s.textSeen = true
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.TextDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.AppendUTF8(dst, lit))
}

// beginReasoning ends the open block and begins a reasoning item, whose
// block is not opened yet.
func (s *Stream) beginReasoning(dst []byte) []byte {
	dst = s.closeOpen(dst)
	s.think.Reset()
	s.reasoning.parts, s.reasoning.content, s.texted = s.reasoning.parts[:0], false, false
	s.id, s.encrypted = s.id[:0], s.encrypted[:0]
	s.open = reasoningItem
	return dst
}

// openThinking opens the thinking block of the reasoning item begun, or
// of one that began without output_item.added; an open one stays open.
func (s *Stream) openThinking(dst []byte) []byte {
	switch s.open {
	case thinkingBlock:
		return dst
	case reasoningItem:
	default:
		dst = s.beginReasoning(dst)
	}
	dst = s.startBlock(dst, thinkingBlock)
	return append(dst, messagesapi.ThinkingStart+messagesapi.BlockStartEnd...)
}

// openTool opens the tool_use of a function call item.
func (s *Stream) openTool(dst []byte, it jsonscan.Value) []byte {
	dst = s.closeOpen(dst)
	s.calls++
	s.tool.Reset()
	dst = s.startBlock(dst, toolBlock)
	dst = append(dst, `{"type":"tool_use","id":"`...)
	s.scratch = appendValue(s.scratch[:0], it.Get("call_id"))
	dst = appendToolUseID(dst, s.scratch)
	dst = append(dst, `","name":`...)
	dst = appendName(dst, it.Get("name"))
	return append(dst, `,"input":{}}`+messagesapi.BlockStartEnd...)
}

// startBlock appends the head of the next block's content_block_start.
func (s *Stream) startBlock(dst []byte, k kind) []byte {
	if s.blocks > 0 {
		s.index++
	}
	s.blocks++
	s.open = k
	return messagesapi.AppendBlockStartHead(dst, s.index)
}

// closeOpen ends the open block: a thinking block with its signature, the
// envelope of its reasoning item; a tool_use with what completes its
// arguments.
func (s *Stream) closeOpen(dst []byte) []byte {
	switch s.open {
	case none:
		return dst
	case reasoningItem:
		// Neither text nor encrypted content: no block.
		s.open = none
		return dst
	case thinkingBlock:
		dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.SignatureDeltaHead)
		dst = jsonstr.Quote(dst, []byte(s.seal()))
		dst = messagesapi.AppendDeltaTail(dst)
	case toolBlock:
		dst = s.tool.Finish(dst, s.index)
	}
	s.open = none
	return messagesapi.AppendBlockStop(dst, s.index)
}

// seal returns the envelope of the open reasoning item.
func (s *Stream) seal() string {
	var sum [sha256.Size]byte
	s.think.Sum(sum[:0])
	r := &s.reasoning
	r.id, r.encrypted = s.id, s.encrypted
	s.payload = r.appendPayload(s.payload[:0])
	return s.opts.Signer.Seal(envelope.OnBlock, sum, s.payload)
}

// appendValue appends the value of a string literal; nothing for another
// value.
func appendValue(dst []byte, lit jsonscan.Value) []byte {
	if lit.Kind() != jsonscan.String {
		return dst
	}
	dst, _ = jsonstr.Append(dst, lit)
	return dst
}

// appendName appends a function's name literal, "" when it has none; bytes
// that are not UTF-8 as U+FFFD (see jsonstr.AppendUTF8).
func appendName(dst []byte, name jsonscan.Value) []byte {
	if !literal(name) {
		return append(dst, `""`...)
	}
	return jsonstr.AppendUTF8(dst, name)
}

// textOf returns the text of a message's content part: an output_text's
// text or a refusal's refusal.
func textOf(p jsonscan.Value) jsonscan.Value {
	if p.Get("type").Is("refusal") {
		return p.Get("refusal")
	}
	return p.Get("text")
}
