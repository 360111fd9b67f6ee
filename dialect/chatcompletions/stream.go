package chatcompletions

import (
	"bytes"
	"crypto/sha256"
	"hash"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/answer/thinktags"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolargs"
)

// Stream turns the chunks of a streamed chat-completions answer into the
// events of a Messages stream: message_start with the first chunk, then
// thinking (from the reasoning fields or <think> tags), text and tool_use
// blocks one at a time, each closed before the next opens, then
// message_delta and message_stop once the finish reason and the usage (or
// the end of the stream) are in. Each chunk's events come out at once; only
// a tag that may still be completing, whitespace that may turn out to be
// all of a text block, and tool arguments that are not a JSON object wait.
// After an error event, or message_stop, it writes nothing more.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	opts     AnswerOptions
	modelLit []byte

	started, ended bool
	open           kind
	index          int // index of the open block, or of the last one
	blocks         int // blocks started

	think hash.Hash // the open thinking block's text
	tags  tagMode
	split thinktags.Splitter
	runs  []thinktags.Run
	lead  []byte // content held before the tags are decided
	space []byte // whitespace held before a text block opens

	tool      toolargs.Stream
	toolCalls int // tool calls seen
	lastTool  int // upstream index of the last tool call

	// det are the reasoning_details parts the open thinking block
	// carries, or that wait for one (see details.go); payload is where
	// their envelope's payload is written.
	det     details
	payload []byte

	finish  []byte // finish_reason literal, once seen
	usage   usage
	scratch []byte
	c       chunk
	noFast  bool // every chunk takes parseChunk: set by tests of fastChunk
}

// kind is the kind of the open block.
type kind uint8

const (
	none kind = iota
	thinkingBlock
	textBlock
	toolBlock
)

// tagMode says whether the content is read for <think> tags.
type tagMode uint8

const (
	undecided tagMode = iota // nothing but whitespace yet: tags may open
	tagged                   // the content opened with a tag: split it
	plain                    // no tags: the content is text
)

// Bounds on what waits.
const (
	maxHeldSpace = 4 << 10 // whitespace before a text block
	maxLead      = 4 << 10 // content before the tags are decided
)

// NewStream returns a Stream for one answer.
func NewStream(opts AnswerOptions) *Stream {
	s := &Stream{opts: opts, modelLit: jsonstr.Quote(nil, []byte(opts.Model)), lastTool: -1}
	switch {
	case opts.NoTags:
		s.tags = plain
	case opts.AssumeOpen:
		s.tags, s.split = tagged, thinktags.NewSplitter(true, 1)
	}
	return s
}

// Done reports whether the stream has ended: message_stop or an error
// event was written.
func (s *Stream) Done() bool { return s.ended }

// Chunk appends the events for one chunk, given as the data of its event
// ("[DONE]" included). A chunk that is not JSON ends the stream with an
// error event.
func (s *Stream) Chunk(dst, data []byte) []byte {
	if s.ended {
		return dst
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return s.done(dst)
	}
	if !s.parse(data) {
		return s.Fail(dst, "api_error", "the upstream sent a chunk that is not a JSON object")
	}
	c := &s.c
	if c.err != nil {
		return s.Fail(dst, chunkErrorType(c.err), chunkErrorMessage(c.err))
	}
	if !s.started {
		dst = s.start(dst, c.id)
	}
	dst = s.reasoning(dst, c)
	if s.ended {
		return dst
	}
	if c.content != nil {
		dst = s.content(dst, c.content)
	}
	if c.toolCalls != nil {
		dst = s.toolCallDeltas(dst, c.toolCalls)
		if s.ended {
			return dst
		}
	}
	if c.finish != nil && s.finish == nil {
		s.finish = append([]byte(nil), c.finish[1:len(c.finish)-1]...)
		dst = s.settle(dst)
	}
	if c.usage != nil {
		s.usage.read(c.usage)
	}
	// The usage comes in a chunk of its own after the finish reason, when
	// it comes at all: the message ends with it, or at [DONE].
	if s.finish != nil && s.usage.seen {
		dst = s.end(dst)
	}
	return dst
}

// parse reads a chunk's data into s.c: a chunk of the common shape by
// fastChunk, any other by parseChunk, which reads it the same.
func (s *Stream) parse(data []byte) bool {
	return !s.noFast && fastChunk(data, &s.c) || parseChunk(data, &s.c)
}

// End appends what ends the stream when the upstream's body ended: the
// message's end when the finish reason came, an error event otherwise.
func (s *Stream) End(dst []byte) []byte {
	if s.ended {
		return dst
	}
	if s.finish == nil {
		return s.Fail(dst, "api_error", "the upstream's stream ended before its answer was complete")
	}
	return s.end(dst)
}

// Fail appends an error event and ends the stream.
func (s *Stream) Fail(dst []byte, typ, msg string) []byte {
	return messagesapi.AppendFailure(dst, &s.ended, typ, msg)
}

// done handles [DONE]: the server says its answer is complete.
func (s *Stream) done(dst []byte) []byte {
	if !s.started {
		return s.Fail(dst, "api_error", "the upstream's stream ended without an answer")
	}
	return s.end(dst)
}

func (s *Stream) start(dst, id []byte) []byte {
	s.started = true
	var idBuf [64]byte
	msgID := appendID(idBuf[:0], id)
	if len(msgID) == 0 {
		msgID = append(msgID, "chat"...)
	}
	return messagesapi.AppendMessageStart(dst, msgID, s.modelLit)
}

// end closes what is open and writes message_delta and message_stop.
func (s *Stream) end(dst []byte) []byte {
	dst = s.settle(dst)
	s.ended = true
	u := s.usage
	if !u.seen || u.prompt == 0 {
		u.prompt = max(u.prompt, s.opts.InputTokens)
	}
	return messagesapi.AppendMessageEnd(dst, stopReason(s.finish, s.toolCalls > 0), u.messages())
}

// settle writes what waits for more content (a partial tag), drops
// whitespace that never became text, and closes the open block.
func (s *Stream) settle(dst []byte) []byte {
	dst = s.flushContent(dst)
	s.space = s.space[:0]
	return s.closeBlock(dst)
}

// openBlock closes the open block and opens one of kind k, whose
// content_block is start.
func (s *Stream) openBlock(dst []byte, k kind, start string) []byte {
	dst = s.startBlock(dst, k)
	dst = append(dst, start...)
	return append(dst, messagesapi.BlockStartEnd...)
}

// startBlock closes the open block and opens one of kind k, writing its
// content_block_start event up to the content_block, which the caller
// writes and ends with messagesapi.BlockStartEnd.
func (s *Stream) startBlock(dst []byte, k kind) []byte {
	dst = s.closeBlock(dst)
	if s.blocks > 0 {
		s.index++
	}
	s.blocks++
	s.open = k
	return messagesapi.AppendBlockStartHead(dst, s.index)
}

func (s *Stream) closeBlock(dst []byte) []byte {
	switch s.open {
	case none:
		return dst
	case thinkingBlock:
		var sum [sha256.Size]byte
		s.think.Sum(sum[:0])
		dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.SignatureDeltaHead)
		dst = jsonstr.Quote(dst, []byte(s.signature(sum)))
		dst = messagesapi.AppendDeltaTail(dst)
	case toolBlock:
		dst = s.tool.Finish(dst, s.index)
	}
	s.open = none
	return messagesapi.AppendBlockStop(dst, s.index)
}

// reasoningLiteral writes reasoning given as a string literal, the text
// of reasoning_details part (-1: of none); bytes that are not UTF-8 as
// U+FFFD, as value holds them and the client decodes them.
func (s *Stream) reasoningLiteral(dst, lit []byte, part int) []byte {
	dst = s.endTagDecision(dst)
	var value []byte
	value, s.scratch, _ = jsonstr.Value(s.scratch[:0], lit)
	dst = s.openThinking(dst)
	s.think.Write(value)
	if s.carriesDetails() {
		s.det.segment(part, len(value))
	}
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.ThinkingDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.AppendUTF8(dst, lit))
}

// thinkingText writes reasoning read from tags.
func (s *Stream) thinkingText(dst, text []byte) []byte {
	dst = s.openThinking(dst)
	s.think.Write(text)
	if s.carriesDetails() {
		s.det.segment(-1, len(text))
	}
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.ThinkingDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.Quote(dst, text))
}

func (s *Stream) openThinking(dst []byte) []byte {
	if s.open == thinkingBlock {
		return dst
	}
	s.space = s.space[:0]
	if s.think == nil {
		s.think = sha256.New()
	}
	s.think.Reset()
	return s.openBlock(dst, thinkingBlock, messagesapi.ThinkingStart)
}

// text writes decoded text, holding whitespace until the text block has
// something else to show: a block of nothing but whitespace is refused
// when the client sends it back.
func (s *Stream) text(dst, text []byte) []byte {
	if len(text) == 0 {
		return dst
	}
	if s.open != textBlock {
		if isBlank(text) {
			// Held, up to a bound past which whitespace is dropped: it
			// never opens a block by itself.
			s.space = append(s.space, text[:min(len(text), maxHeldSpace-len(s.space))]...)
			return dst
		}
		// Whitespace between another block and the text (the "\n\n" after
		// reasoning) is dropped, as the think-tag splitter drops it.
		if s.blocks > 0 {
			s.space = s.space[:0]
		}
		dst = s.openBlock(dst, textBlock, messagesapi.TextStart)
		if len(s.space) > 0 {
			dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.TextDeltaHead)
			dst = messagesapi.AppendDeltaTail(jsonstr.Quote(dst, s.space))
			s.space = s.space[:0]
		}
	}
	dst = messagesapi.AppendDeltaHead(dst, s.index, messagesapi.TextDeltaHead)
	return messagesapi.AppendDeltaTail(jsonstr.Quote(dst, text))
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}
