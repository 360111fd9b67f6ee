package gemini

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// Stream turns the events of a Gemini stream (alt=sse: each event's data a
// whole GenerateContentResponse with the parts of that chunk) into the
// events of a Messages stream, as they come: message_start with the first,
// then thinking, text and tool_use blocks (see blocks), then message_delta
// and message_stop with the chunk that carries finishReason. An error
// object, in an event or written bare after the last one, ends the stream
// with an error event. It implements messagesapi.Translator.
//
// A Stream is not safe for concurrent use.
type Stream struct {
	opts     AnswerOptions
	modelLit []byte
	b        blocks
	sse      sseSink

	started, ended bool
	finish         []byte
	finishMessage  []byte // a string literal, or nil
	usage          usage
	blocked        bool
	stray          []byte // lines of a bare error object
	parts          []partFields
	noAnswer       *NoAnswer
}

// maxStray bounds what is kept of lines that are no event's.
const maxStray = 64 << 10

// NewStream returns a Stream for one answer.
func NewStream(opts AnswerOptions) *Stream {
	s := &Stream{opts: opts, modelLit: jsonstr.Quote(nil, []byte(opts.Model))}
	s.b = newBlocks(opts, &s.sse)
	return s
}

// Done reports whether the stream has ended.
func (s *Stream) Done() bool { return s.ended }

// Stray keeps a line that is no event's: Gemini ends a stream that failed
// after its first byte with its error object written bare.
func (s *Stream) Stray(line []byte) {
	if len(s.stray)+len(line) <= maxStray {
		s.stray = append(append(s.stray, line...), '\n')
	}
}

// Chunk appends the events for the data of one event.
func (s *Stream) Chunk(dst, data []byte) []byte {
	if s.ended {
		return dst
	}
	// The walk of readResponse is all that is checked of a chunk: the
	// values passed on as they are (text, arguments, names) are checked
	// where they are (see literal), the rest only read.
	v := jsonscan.Value(bytes.TrimSpace(data))
	if v.Kind() == jsonscan.Array { // a client that asked without alt=sse
		if !jsonscan.Valid(v) {
			return s.Fail(dst, "api_error", "the upstream sent an event that is not a JSON object")
		}
		v = v.Index(0)
	}
	r := readResponse(v, s.parts)
	s.parts = r.parts
	if !r.whole(v) {
		return s.Fail(dst, "api_error", "the upstream sent an event that is not a JSON object")
	}
	if r.err.Exists() {
		status := errorStatus(r.err)
		return s.Fail(dst, messagesapi.ErrorType(status), errorMessage(status, data))
	}
	if !s.started {
		s.started = true
		dst = messagesapi.AppendMessageStart(dst, messageID(r.responseID), s.modelLit)
	}
	s.sse.dst = dst
	for i := range r.parts {
		s.b.part(&r.parts[i])
	}
	if r.usage.Exists() {
		s.usage.read(r.usage)
	}
	if r.blocked {
		s.blocked = true
		s.finish = append(s.finish[:0], "BLOCKED"...)
	}
	if f := r.finish; f.Kind() == jsonscan.String {
		s.finish = append(s.finish[:0], f[1:len(f)-1]...)
		s.finishMessage = append(s.finishMessage[:0], r.finishMessage...)
	}
	dst = s.sse.dst
	if s.finish != nil {
		dst = s.end(dst)
	}
	return dst
}

// End ends the stream when the upstream's body ended: after an error
// object written bare, with its error; before finishReason, with an error.
func (s *Stream) End(dst []byte) []byte {
	if s.ended {
		return dst
	}
	if stray := bytes.TrimSpace(s.stray); len(stray) > 0 && jsonscan.Valid(stray) {
		v := jsonscan.Parse(stray)
		if v.Kind() == jsonscan.Array {
			v = v.Index(0)
		}
		if e := v.Get("error"); e.Exists() {
			status := errorStatus(e)
			return s.Fail(dst, messagesapi.ErrorType(status), errorMessage(status, stray))
		}
	}
	return messagesapi.AppendCut(dst, s.started, &s.ended)
}

// Fail appends an error event and ends the stream.
func (s *Stream) Fail(dst []byte, typ, msg string) []byte {
	return messagesapi.AppendFailure(dst, &s.ended, typ, msg)
}

// end closes the last block and writes message_delta and message_stop;
// for an answer the model failed to produce, an error event the client
// retries by itself (api_error), never an empty end_turn.
func (s *Stream) end(dst []byte) []byte {
	s.sse.dst = dst
	s.b.finish()
	if s.noAnswer = noAnswer(s.finish, s.finishMessage, s.b.answered); s.noAnswer != nil {
		return s.Fail(s.sse.dst, "api_error", s.noAnswer.Error()+"; retry the request")
	}
	s.ended = true
	return messagesapi.AppendMessageEnd(s.sse.dst, stopReason(s.finish, s.b.calls, s.blocked), s.usage.messages(s.opts.InputTokens))
}

// NoAnswer returns the NoAnswer of a stream that ended as an answer the
// model failed to produce, or nil. Read after the stream's first event,
// it tells a transport that no byte of the answer need reach the client:
// the request can be sent again.
func (s *Stream) NoAnswer() error {
	if s.noAnswer == nil {
		return nil
	}
	return s.noAnswer
}

// messageID returns the id of the message of responseId: its own, when
// it can be one.
func messageID(responseID jsonscan.Value) []byte {
	if responseID.Kind() == jsonscan.String && plainID(responseID[1:len(responseID)-1]) {
		return responseID[1 : len(responseID)-1]
	}
	return []byte("gemini")
}

// sseSink writes blocks as the events of a Messages stream.
type sseSink struct {
	dst    []byte
	index  int
	blocks int
}

func (s *sseSink) next() int {
	if s.blocks > 0 {
		s.index++
	}
	s.blocks++
	return s.index
}

func (s *sseSink) open(k kind) {
	s.dst = messagesapi.AppendBlockStartHead(s.dst, s.next())
	if k == thinkingBlock {
		s.dst = append(s.dst, messagesapi.ThinkingStart+messagesapi.BlockStartEnd...)
	} else {
		s.dst = append(s.dst, messagesapi.TextStart+messagesapi.BlockStartEnd...)
	}
}

// delta passes lit on as it is when it is a valid literal of valid
// UTF-8, and otherwise repaired as the JSON answer writes every text (see
// jsonSink.delta): bytes that are not UTF-8 as U+FFFD, control characters
// escaped. A strict decoder on the client never fails on it.
func (s *sseSink) delta(k kind, lit []byte) {
	head := messagesapi.TextDeltaHead
	if k == thinkingBlock {
		head = messagesapi.ThinkingDeltaHead
	}
	s.dst = messagesapi.AppendDeltaHead(s.dst, s.index, head)
	if literal(lit) {
		s.dst = jsonstr.AppendUTF8(s.dst, lit)
	} else {
		s.dst = append(jsonstr.RequoteAll(append(s.dst, '"'), lit[1:len(lit)-1]), '"')
	}
	s.dst = messagesapi.AppendDeltaTail(s.dst)
}

func (s *sseSink) close(k kind, signature string) {
	if k == thinkingBlock {
		s.dst = messagesapi.AppendDeltaHead(s.dst, s.index, messagesapi.SignatureDeltaHead)
		s.dst = jsonstr.Quote(s.dst, []byte(signature))
		s.dst = messagesapi.AppendDeltaTail(s.dst)
	}
	s.dst = messagesapi.AppendBlockStop(s.dst, s.index)
}

func (s *sseSink) thinking(signature string) {
	s.open(thinkingBlock)
	s.close(thinkingBlock, signature)
}

func (s *sseSink) tool(id []byte, name jsonscan.Value, input []byte) {
	s.dst = messagesapi.AppendBlockStartHead(s.dst, s.next())
	s.dst = append(s.dst, `{"type":"tool_use","id":`...)
	s.dst = jsonstr.Quote(s.dst, id)
	s.dst = append(s.dst, `,"name":`...)
	s.dst = appendName(s.dst, name)
	s.dst = append(s.dst, `,"input":{}}`+messagesapi.BlockStartEnd...)
	s.dst = messagesapi.AppendDeltaHead(s.dst, s.index, messagesapi.InputDeltaHead)
	s.dst = jsonstr.Quote(s.dst, input)
	s.dst = messagesapi.AppendDeltaTail(s.dst)
	s.dst = messagesapi.AppendBlockStop(s.dst, s.index)
}

// appendName appends a function's name literal, "" when it has none; bytes
// that are not UTF-8 as U+FFFD (see jsonstr.AppendUTF8).
func appendName(dst []byte, name jsonscan.Value) []byte {
	if !literal(name) {
		return append(dst, `""`...)
	}
	return jsonstr.AppendUTF8(dst, name)
}

// literal reports whether v is a valid string literal, which the
// translation may pass on as it is.
func literal(v jsonscan.Value) bool { return v.Kind() == jsonscan.String && jsonscan.Valid(v) }
