package thinking

import (
	"bytes"
	"errors"
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// ErrNotMessages reports a body that is valid enough to read but is not a
// Messages request: not an object, or no messages array.
var ErrNotMessages = errors.New("not a Messages request: want an object with a messages array")

// Kind says whether a block is a thinking or a redacted_thinking block.
type Kind uint8

// The two kinds of block the package rewrites.
const (
	Thinking Kind = iota + 1
	Redacted
)

// String returns the block type as the API names it.
func (k Kind) String() string {
	if k == Redacted {
		return "redacted_thinking"
	}
	return "thinking"
}

// Block is a thinking or redacted_thinking block of an assistant message.
// Its byte fields hold decoded values and stay valid as long as the Request.
type Block struct {
	Kind    Kind
	Message int // index in messages
	Index   int // index in that message's content
	// Thinking and Signature are set for Kind Thinking, Data for Redacted.
	Thinking  []byte
	Signature []byte
	Data      []byte
	// HasSignature reports whether the block carries a signature field at
	// all (unsigned blocks come from backends such as Ollama).
	HasSignature bool
}

// Request is the structure of one Messages request body, as far as this
// package needs it. Parse builds it without copying the body; the body must
// not change while the Request is in use.
type Request struct {
	body     []byte
	members  []member // top-level members, in order
	messages []message
	content  []part // content parts of all messages, message by message
	blocks   []Block
	arena    []byte // decoded block strings

	thinkingType     []byte // value of thinking.type, raw literal contents
	contextEdits     span   // context_management.edits array, if any
	contextOnlyEdits bool   // context_management holds nothing but edits
	userID           span   // metadata.user_id literal
	stream           bool
}

// member is one top-level member of the body.
type member struct {
	name  memberName
	key   span // the key literal
	value span
}

type memberName uint8

const (
	otherMember memberName = iota
	messagesMember
	thinkingMember
	contextMember
	metadataMember
	streamMember
)

type role uint8

const (
	otherRole role = iota
	userRole
	assistantRole
)

// message is one element of messages. Only assistant messages have their
// parts read; the API rules that matter for a user message (does it carry a
// tool result) are answered on demand, for the few messages that need it.
type message struct {
	role         role
	content      span // the content value
	contentArray bool
	parts        span // range of Request.content
}

// partType is the type of one content block.
type partType uint8

const (
	otherPart partType = iota
	textPart
	thinkingPart
	redactedPart
	toolUsePart
	toolResultPart
)

func (t partType) isThinking() bool { return t == thinkingPart || t == redactedPart }

// part is one content block of a message.
type part struct {
	typ   partType
	span  span
	block int // index in Request.blocks for thinking parts, else -1
	// Fields of thinking parts, for rewriting them.
	thinking  span // the thinking literal
	signature span // the signature member, key to value
	sigValue  span // the signature literal
	members   int  // number of members in the block object
}

// requests recycles Requests: every Messages request is parsed, and their
// slices would otherwise be garbage each time.
var requests = sync.Pool{New: func() any { return new(Request) }}

// Parse reads the structure of a Messages request body. It returns an error
// wrapping ErrNotMessages, or a syntax error, when it cannot; the caller then
// forwards the body untouched. Call Release when done with the Request.
func Parse(body []byte) (*Request, error) {
	r := requests.Get().(*Request)
	r.body = body
	if err := r.parse(); err != nil {
		r.Release()
		return nil, err
	}
	return r, nil
}

func (r *Request) parse() error {
	b := r.body
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotMessages
	}
	it := jsonscan.Members(b, i)
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, err := r.topMember(it.KeyOffset(), key, v)
		if err != nil {
			return err
		}
		it.SetEnd(end)
	}
	end, err := finish(&it)
	switch {
	case err != nil:
		return err
	case jsonscan.SkipSpace(b, end) != len(b):
		return syntaxError(end, "the end of the body")
	case !r.hasMember(messagesMember):
		return ErrNotMessages
	}
	return nil
}

// Release gives the Request back for reuse. Neither it nor its Blocks may be
// used afterwards; a body Rewrite returned stays valid.
func (r *Request) Release() {
	*r = Request{
		members:  r.members[:0],
		messages: r.messages[:0],
		content:  r.content[:0],
		blocks:   r.blocks[:0],
		arena:    r.arena[:0],
	}
	requests.Put(r)
}

func (r *Request) hasMember(n memberName) bool {
	for _, m := range r.members {
		if m.name == n {
			return true
		}
	}
	return false
}

// Blocks returns the thinking and redacted_thinking blocks of the assistant
// messages, in order.
func (r *Request) Blocks() []Block { return r.blocks }

// ThinkingType returns the request's thinking.type ("enabled", "adaptive",
// "disabled"), or "" when there is no thinking config.
func (r *Request) ThinkingType() string { return string(r.thinkingType) }

// Stream reports whether the request asks for a streamed response.
func (r *Request) Stream() bool { return r.stream }

// UserID returns the decoded metadata.user_id, or "" when there is none.
func (r *Request) UserID() string {
	if r.userID.end == 0 {
		return ""
	}
	v, ok := jsonstr.Append(nil, r.userID.of(r.body))
	if !ok {
		return ""
	}
	return string(v)
}

// stringValue returns the contents of the string literal at b[i] (decoded
// only when it has escapes) and the index just past it; a value of another
// type reads as nil.
func stringValue(b []byte, i int) ([]byte, int, error) {
	end, err := skipValue(b, i)
	if err != nil || b[i] != '"' {
		return nil, end, err
	}
	lit := b[i:end]
	if bytes.IndexByte(lit, '\\') < 0 {
		return lit[1 : len(lit)-1], end, nil
	}
	v, ok := jsonstr.Append(nil, lit)
	if !ok {
		return nil, 0, syntaxError(i, "a valid string")
	}
	return v, end, nil
}

func (r *Request) topMember(keyStart int, key []byte, v int) (int, error) {
	b := r.body
	m := member{key: span{keyStart, keyStart + len(key)}}
	var end int
	var err error
	var buf [32]byte
	switch string(jsonscan.Name(key, &buf)) {
	case "messages":
		m.name = messagesMember
		end, err = r.messageArray(v)
	case "thinking":
		m.name = thinkingMember
		end, err = r.thinkingConfig(v)
	case "context_management":
		m.name = contextMember
		end, err = r.contextManagement(v)
	case "metadata":
		m.name = metadataMember
		end, err = r.metadata(v)
	case "stream":
		m.name = streamMember
		end, err = skipValue(b, v)
		r.stream = err == nil && string(b[v:end]) == "true"
	default:
		end, err = skipValue(b, v)
	}
	if err != nil {
		return 0, err
	}
	m.value = span{v, end}
	r.members = append(r.members, m)
	return end, nil
}

func (r *Request) thinkingConfig(v int) (int, error) {
	b := r.body
	it := jsonscan.Members(b, v)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		if string(jsonscan.Name(key, &buf)) != "type" {
			continue
		}
		typ, end, err := stringValue(b, v)
		if err != nil {
			return 0, err
		}
		r.thinkingType = typ
		it.SetEnd(end)
	}
	return finish(&it)
}

func (r *Request) metadata(v int) (int, error) {
	b := r.body
	it := jsonscan.Members(b, v)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		if string(jsonscan.Name(key, &buf)) != "user_id" || b[v] != '"' {
			continue
		}
		end, ok := it.Skip()
		if ok {
			r.userID = span{v, end}
		}
	}
	return finish(&it)
}

func (r *Request) contextManagement(v int) (int, error) {
	b := r.body
	it := jsonscan.Members(b, v)
	var buf [32]byte
	n, edits := 0, 0
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		n++
		if string(jsonscan.Name(key, &buf)) != "edits" || b[v] != '[' {
			continue
		}
		edits++
		if end, ok := it.Skip(); ok {
			r.contextEdits = span{v, end}
		}
	}
	r.contextOnlyEdits = n == 1 && edits == 1
	return finish(&it)
}

func (r *Request) messageArray(v int) (int, error) {
	it := jsonscan.Elements(r.body, v)
	for _, start, ok := it.Next(); ok; _, start, ok = it.Next() {
		end, err := r.message(start)
		if err != nil {
			return 0, err
		}
		it.SetEnd(end)
	}
	return finish(&it)
}

func (r *Request) message(i int) (int, error) {
	b := r.body
	m := message{parts: span{len(r.content), len(r.content)}}
	content := -1
	it := jsonscan.Members(b, i)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		switch string(jsonscan.Name(key, &buf)) {
		case "role":
			role, end, err := stringValue(b, v)
			if err != nil {
				return 0, err
			}
			switch string(role) {
			case "user":
				m.role = userRole
			case "assistant":
				m.role = assistantRole
			default:
				m.role = otherRole
			}
			it.SetEnd(end)
		case "content":
			content = v
		}
	}
	end, err := finish(&it)
	if err != nil {
		return 0, err
	}
	if content >= 0 {
		// Content is walked after the role is known, since the role decides
		// whether thinking blocks in it are ours to rewrite.
		cend, err := skipValue(b, content)
		if err != nil {
			return 0, err
		}
		m.content = span{content, cend}
		m.contentArray = b[content] == '['
		if m.contentArray && m.role == assistantRole {
			if err := r.contentArray(&m, len(r.messages), content); err != nil {
				return 0, err
			}
		}
	}
	m.parts.end = len(r.content)
	r.messages = append(r.messages, m)
	return end, nil
}

func (r *Request) contentArray(m *message, msgIndex, i int) error {
	it := jsonscan.Elements(r.body, i)
	for _, start, ok := it.Next(); ok; _, start, ok = it.Next() {
		end, err := r.part(m, msgIndex, start)
		if err != nil {
			return err
		}
		it.SetEnd(end)
	}
	_, err := finish(&it)
	return err
}

// part reads one content block of m.
func (r *Request) part(m *message, msgIndex, i int) (int, error) {
	b := r.body
	if b[i] != '{' {
		end, err := skipValue(b, i)
		r.content = append(r.content, part{typ: otherPart, span: span{i, end}, block: -1})
		return end, err
	}
	var typ []byte
	p := part{block: -1}
	var data span
	hasSig := false
	it := jsonscan.Members(b, i)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		p.members++
		name := jsonscan.Name(key, &buf)
		if string(name) == "type" {
			val, end, err := stringValue(b, v)
			if err != nil {
				return 0, err
			}
			typ = val
			it.SetEnd(end)
			continue
		}
		switch string(name) {
		case "thinking", "signature", "data":
		default:
			continue
		}
		end, ok := it.Skip()
		if !ok {
			break
		}
		switch string(name) {
		case "thinking":
			p.thinking = span{v, end}
		case "signature":
			p.signature, p.sigValue = span{it.KeyOffset(), end}, span{v, end}
			hasSig = true
		case "data":
			data = span{v, end}
		}
	}
	end, err := finish(&it)
	if err != nil {
		return 0, err
	}
	p.span = span{i, end}
	switch string(typ) {
	case "text":
		p.typ = textPart
	case "thinking":
		p.typ = thinkingPart
	case "redacted_thinking":
		p.typ = redactedPart
	case "tool_use":
		p.typ = toolUsePart
	case "tool_result":
		p.typ = toolResultPart
	}
	if p.typ.isThinking() {
		blk := Block{Message: msgIndex, Index: len(r.content) - m.parts.start, HasSignature: hasSig}
		var ok bool
		if p.typ == thinkingPart {
			blk.Kind = Thinking
			blk.Thinking, ok = r.decode(p.thinking)
			if ok && hasSig {
				blk.Signature, ok = r.decode(p.sigValue)
			}
		} else {
			blk.Kind = Redacted
			blk.Data, ok = r.decode(data)
		}
		if !ok {
			return 0, syntaxError(i, "string fields in a thinking block")
		}
		p.block = len(r.blocks)
		r.blocks = append(r.blocks, blk)
	}
	r.content = append(r.content, p)
	return end, nil
}

// hasToolResult reports whether message mi carries a tool_result block.
// The body was walked before, so it cannot be malformed here.
func (r *Request) hasToolResult(mi int) bool {
	m := r.messages[mi]
	if !m.contentArray {
		return false
	}
	it := jsonscan.Elements(r.body, m.content.start)
	var buf [32]byte
	for _, part, ok := it.Item(); ok; _, part, ok = it.Item() {
		f := jsonscan.Members(part, 0)
		for key, value, ok := f.Item(); ok; key, value, ok = f.Item() {
			if string(jsonscan.Name(key, &buf)) == "type" && string(jsonscan.Name(value, &buf)) == "tool_result" {
				return true
			}
		}
	}
	return false
}

// decode returns the value of the string literal at s: the body's own bytes
// when it has no escapes, else a copy decoded into the arena. An absent field
// (an empty span) is the empty string.
func (r *Request) decode(s span) ([]byte, bool) {
	if s.end == 0 {
		return nil, true
	}
	lit := s.of(r.body)
	if len(lit) < 2 || lit[0] != '"' {
		return nil, false
	}
	if bytes.IndexByte(lit, '\\') < 0 {
		return lit[1 : len(lit)-1], true
	}
	start := len(r.arena)
	var ok bool
	if r.arena, ok = jsonstr.Append(r.arena, lit); !ok {
		return nil, false
	}
	return r.arena[start:len(r.arena):len(r.arena)], true
}
