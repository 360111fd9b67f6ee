package thinking

import (
	"bytes"
	"errors"
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// ErrNotMessages reports a body that is valid enough to read but is not a
// Messages request: not an object, or no messages array.
var ErrNotMessages = errors.New("not a Messages request: want an object with a messages array")

// Block is a thinking or redacted_thinking block of an assistant message.
type Block struct {
	Kind    block.Kind
	Message int32 // index in messages
	Index   int32 // index in that message's content
	// Key identifies the block by its whole content (text and signature, or
	// redacted data), as the response that produced it was keyed.
	Key block.Key
	// Synthesized marks a block this module made from a backend's <think>
	// tags or from a chat-completions server's reasoning (see
	// block.SynthesizedPrefix).
	Synthesized bool
	// Reasoning marks a synthesized block made from a chat-completions
	// server's reasoning (see block.ReasoningPrefix): its producer reads it
	// back as a thinking block, never as tags.
	Reasoning bool
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
	scratch  []byte // decoded strings of a block, while they are hashed
	out      []byte // where Rewrite writes, see Output
	omit     Omission
	// thinkingBack and retypeTo fit the request to its backend (see
	// WantThinkingBack and Retype).
	thinkingBack ThinkingBack
	retypeTo     string
	hasher       block.Hasher
	rw           rewrite // Rewrite's state, kept for its memory
	shapes       shapes  // of the messages
	// arrayAt is where the messages array opens.
	arrayAt int
	// find and from: see Resume.
	find Finder
	from From
	// meter and items: see Resumption.
	meter Meter
	items int
	// lazyMessages and lazyParts are the messages and parts taken from a
	// checkpoint, as it holds them, until a rewrite asks for them (see
	// msg, parts and take): the first of messages and content wait for
	// them.
	// lazyBase is their base.
	lazyMessages []cmessage
	lazyParts    []cpart
	lazyBase     int
	// taken marks the lazy messages that messages and content hold.
	taken []bool
	// restored counts the messages taken from a checkpoint, and resumedAt
	// is where they end, or 0; prefixValid says the body up to there was
	// checked to be valid JSON.
	restored    int
	resumedAt   int
	prefixValid bool
	// tailAt is where the checkpointed tail the body ends with begins, or
	// 0; tailValid says the tail was checked to be valid JSON, and
	// tailDigest is its digest, once known.
	tailAt     int
	tailValid  bool
	tailDigest uint64
	// heads: see ResumeWith. headRestored says the members before the
	// messages array were taken from it; headDigest is the digest of the
	// body up to and including the bracket at headAt, when that is not 0
	// (see headDigestOf).
	heads        *Heads
	headRestored bool
	headAt       int
	headDigest   uint64
	// validated says the whole body was checked to be valid JSON.
	validated bool

	config
}

// config is what the top-level members other than messages say.
type config struct {
	thinkingType     []byte // value of thinking.type, raw literal contents
	thinkingDisplay  bool   // the thinking config has a display
	contextEdits     span   // context_management.edits array, if any
	contextOnlyEdits bool   // context_management holds nothing but edits
	userID           span   // metadata.user_id literal
	model            span   // the model literal
	stream           bool
	budgetTokens     int    // thinking.budget_tokens, 0 when absent or not a count
	maxTokens        int    // max_tokens, 0 when absent or not a count
	outputConfig     span   // the output_config value, when it is an object
	effort           []byte // output_config.effort, raw literal contents
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
	modelMember
	maxTokensMember
	outputConfigMember
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
	end          int  // just past the message object
	// reasoning marks an assistant message holding AI SDK reasoning parts,
	// misordered one holding thinking after another block: see Rewrite.
	reasoning, misordered bool
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
	thinking  span // the thinking literal (the text of a reasoning part)
	signature span // the signature member, key to value
	// reasoning marks an AI SDK reasoning part (see reasoning.go), which
	// reads as the thinking or redacted block typ names; value is its
	// signature literal, or its redacted data.
	reasoning bool
	value     span
}

// requests recycles Requests: every Messages request is parsed, and their
// slices would otherwise be garbage each time.
var requests = sync.Pool{New: func() any { return new(Request) }}

// Parse reads the structure of a Messages request body. It returns an error
// wrapping ErrNotMessages, or a syntax error, when it cannot; the caller then
// forwards the body untouched. Call Release when done with the Request.
func Parse(body []byte) (*Request, error) { return Resume(body, nil) }

// A Finder tells Resume what is known of a body's start, given its first
// message: typically that it continues the History of an earlier request
// whose Checkpoint was kept (see History.Shared).
type Finder func(body []byte, o Opening) From

// Resume is Parse, for a body that may continue the history of a request
// read before: find, called once the first message is known, says which
// (see From), and the messages the two share are not read again. find may
// be nil.
func Resume(body []byte, find Finder) (*Request, error) {
	return ResumeWith(body, Resumption{Find: find})
}

// Resumption is what ResumeWith reads a body with; any of it may be nil.
//
// Find is Resume's.
//
// Meter is told, as the structure read grows, about how many bytes of
// memory the request and what is made of it (see Footprint) take: every
// meterStep messages and content blocks, and once a checkpoint gave it its
// structure. An error of Meter stops the reading, and ResumeWith returns
// it: a caller bounds the memory of a request by what it sent this way,
// and counts it where it counts memory, before it is spent.
//
// Heads are the openings of bodies read before, which a body that opens as
// one of them takes its first members from, and which it adds to when it
// opens otherwise.
type Resumption struct {
	Find  Finder
	Meter Meter
	Heads *Heads
}

// ResumeWith is Resume, with a meter of the memory read and the openings
// of recent bodies (see Resumption).
func ResumeWith(body []byte, how Resumption) (*Request, error) {
	r := requests.Get().(*Request)
	r.body, r.find, r.meter, r.heads = body, how.Find, how.Meter, how.Heads
	if err := r.parse(); err != nil {
		r.Release()
		return nil, err
	}
	r.rememberHead()
	return r, nil
}

func (r *Request) parse() error {
	b := r.body
	i := jsonscan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotMessages
	}
	it, err := r.restoreHead(i)
	if err != nil {
		return err
	}
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, err := r.topMember(it.KeyOffset(), key, v)
		if err != nil {
			return err
		}
		if v == r.arrayAt && r.from.Checkpoint != nil {
			restored, err := r.restoreTail(end)
			if err != nil {
				return err
			}
			if restored {
				return nil // the rest is what the checkpointed body ended with
			}
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

// maxPooled bounds the items a Request recycled for reuse may keep the
// memory of: a request of a hundred thousand blocks must not pin that much
// memory in the pool after it.
const maxPooled = 16 << 10

// Release gives the Request back for reuse. It may not be used afterwards;
// its Blocks and a body Rewrite returned stay valid.
func (r *Request) Release() {
	if cap(r.content) > maxPooled || cap(r.messages) > maxPooled || cap(r.blocks) > maxPooled {
		*r = Request{}
		requests.Put(r)
		return
	}
	// Zeroed in place, then given its buffers back: a composite literal
	// would build the whole Request on the stack first, twice (a 3.4 KB
	// frame at the bottom of every plan). The hasher holds no memory of
	// its own; zeroed, it starts afresh.
	members, messages, content, blocks := r.members[:0], r.messages[:0], r.content[:0], r.blocks[:0]
	scratch, taken := r.scratch[:0], r.taken[:0] // taken is cleared by restore, which sizes it
	rw := r.rw.recycled()
	*r = Request{}
	r.members, r.messages, r.content, r.blocks = members, messages, content, blocks
	r.scratch, r.taken, r.rw = scratch, taken, rw
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

// Messages returns how many messages the request holds.
func (r *Request) Messages() int { return len(r.messages) }

// Restored returns how many of the request's messages were taken from a
// checkpoint rather than read (see Resume).
func (r *Request) Restored() int { return r.restored }

// ThinkingType returns the request's thinking.type ("enabled", "adaptive",
// "disabled"), or "" when there is no thinking config.
func (r *Request) ThinkingType() string { return string(r.thinkingType) }

// ThinkingOn reports whether the request turns thinking on ("enabled" or
// "adaptive").
func (r *Request) ThinkingOn() bool { return thinkingOn(string(r.thinkingType)) }

// Stream reports whether the request asks for a streamed response.
func (r *Request) Stream() bool { return r.stream }

// Model returns the decoded model the request asks for, or "".
func (r *Request) Model() string { return r.decoded(r.model) }

// UserID returns the decoded metadata.user_id, or "" when there is none.
func (r *Request) UserID() string { return r.decoded(r.userID) }

// decoded returns the string literal at lit decoded, or "" when there is
// none or it does not decode.
func (r *Request) decoded(lit span) string {
	if lit.End == 0 {
		return ""
	}
	v, ok := jsonstr.Append(nil, lit.Of(r.body))
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
	case "model":
		m.name = modelMember
		end, err = skipValue(b, v)
		r.model = span{}
		if err == nil && b[v] == '"' {
			r.model = span{v, end}
		}
	case "stream":
		m.name = streamMember
		end, err = skipValue(b, v)
		r.stream = err == nil && string(b[v:end]) == "true"
	case "max_tokens":
		m.name = maxTokensMember
		end, err = skipValue(b, v)
		if err == nil {
			r.maxTokens = count(b[v:end])
		}
	case "output_config":
		m.name = outputConfigMember
		end, err = r.outputConfigValue(v)
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
	r.thinkingDisplay = false
	if b[v] != '{' {
		// Not a config the API takes (it refuses the request): nothing in
		// it to read, and the request goes on as it came.
		return skipValue(b, v)
	}
	it := jsonscan.Members(b, v)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		name := jsonscan.Name(key, &buf)
		switch string(name) {
		case "display":
			r.thinkingDisplay = true
		case "budget_tokens":
			end, err := skipValue(b, v)
			if err != nil {
				return 0, err
			}
			r.budgetTokens = count(b[v:end])
			it.SetEnd(end)
		}
		if string(name) != "type" {
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

// outputConfigValue reads the output_config value at b[v]: where it is,
// when it is an object, and its effort.
func (r *Request) outputConfigValue(v int) (int, error) {
	b := r.body
	r.outputConfig, r.effort = span{}, nil
	if b[v] != '{' {
		return skipValue(b, v)
	}
	it := jsonscan.Members(b, v)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		if string(jsonscan.Name(key, &buf)) != "effort" {
			continue
		}
		effort, end, err := stringValue(b, v)
		if err != nil {
			return 0, err
		}
		r.effort = effort
		it.SetEnd(end)
	}
	end, err := finish(&it)
	if err == nil {
		r.outputConfig = span{v, end}
	}
	return end, err
}

// count returns the positive integer a number literal holds, or 0 when it
// holds anything else (a fraction, an exponent, a negative number, a
// number too large to count tokens).
func count(lit []byte) int {
	if len(lit) == 0 || len(lit) > 9 {
		return 0
	}
	n := 0
	for _, c := range lit {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

func (r *Request) metadata(v int) (int, error) {
	b := r.body
	if b[v] != '{' { // names no user, as any other value the API refuses
		return skipValue(b, v)
	}
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
	if b[v] != '{' { // no edits, as any other value the API refuses
		r.contextOnlyEdits = false
		return skipValue(b, v)
	}
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
	it := r.resumeMessages(v)
	if r.restored > 0 && r.meter != nil {
		// What a checkpoint gave is structure this request holds too.
		r.items += len(r.messages) + len(r.content)
		if err := r.meter(r.Footprint()); err != nil {
			return 0, err
		}
	}
	return r.messageElements(it)
}

// messageElements reads the messages an iterator over the messages array
// still has to give.
func (r *Request) messageElements(it jsonscan.Iter) (int, error) {
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
	blocksBefore := len(r.blocks)
	walked := false // the content's parts are in r.content
	it := jsonscan.Members(b, i)
	var buf [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		switch string(jsonscan.Name(key, &buf)) {
		case "role":
			role, end, err := stringValue(b, v)
			if err != nil {
				return 0, err
			}
			m.role = roleOf(role)
			it.SetEnd(end)
		case "content":
			// A repeated member counts as its last occurrence, as in
			// every JSON decoder the upstream may use.
			r.content, r.blocks, walked = r.content[:m.parts.Start], r.blocks[:blocksBefore], false
			if m.role == assistantRole && b[v] == '[' {
				// Clients send the role first: walk the content once.
				end, err := r.contentArray(len(r.messages), v)
				if err != nil {
					return 0, err
				}
				m.content, m.contentArray, walked = span{v, end}, true, true
				it.SetEnd(end)
				break
			}
			end, ok := it.Skip()
			if !ok {
				break
			}
			m.content, m.contentArray = span{v, end}, b[v] == '['
		}
	}
	end, err := finish(&it)
	if err != nil {
		return 0, err
	}
	// The role decides whether thinking blocks in the content are ours:
	// content that came before the role is walked now, and content walked
	// under a role that a later member replaced is forgotten.
	switch {
	case walked && m.role != assistantRole:
		r.content, r.blocks = r.content[:m.parts.Start], r.blocks[:blocksBefore]
	case !walked && m.contentArray && m.role == assistantRole:
		if _, err := r.contentArray(len(r.messages), m.content.Start); err != nil {
			return 0, err
		}
	}
	m.parts.End = len(r.content)
	m.end = end
	if m.role == assistantRole {
		m.reasoning, m.misordered = shape(r.content[m.parts.Start:m.parts.End])
		r.shapes.count(m, 1)
	}
	r.messages = append(r.messages, m)
	return end, r.counted(1)
}

// roleOf maps a message's role name to its role.
func roleOf(name []byte) role {
	switch string(name) {
	case "user":
		return userRole
	case "assistant":
		return assistantRole
	}
	return otherRole
}

// contentArray reads the parts of the content array at b[i] of message
// msgIndex, whose parts start at the end of r.content, and returns where
// the array ends.
func (r *Request) contentArray(msgIndex, i int) (int, error) {
	first := len(r.content)
	it := jsonscan.Elements(r.body, i)
	for _, start, ok := it.Next(); ok; _, start, ok = it.Next() {
		end, err := r.part(msgIndex, len(r.content)-first, start)
		if err != nil {
			return 0, err
		}
		it.SetEnd(end)
	}
	return finish(&it)
}

// part reads the content block at b[i], the index-th of message msgIndex.
func (r *Request) part(msgIndex, index, i int) (int, error) {
	if r.body[i] != '{' {
		end, err := skipValue(r.body, i)
		r.content = append(r.content, part{typ: otherPart, span: span{Start: i, End: end}, block: -1})
		if err == nil {
			err = r.counted(1)
		}
		return end, err
	}
	var buf [32]byte
	f, err := block.ReadFields(r.body, i, &buf)
	if err != nil {
		return 0, err
	}
	if isReasoning(f.Type) {
		return r.reasoningPart(msgIndex, index, i)
	}
	p := part{
		typ:       partTypeOf(f.Type),
		span:      span{Start: i, End: f.End},
		block:     -1,
		thinking:  span(f.Thinking),
		signature: span(f.SignatureMember),
	}
	if f.Kind != 0 {
		if err := r.addBlock(&p, f, msgIndex, index); err != nil {
			return 0, err
		}
	}
	r.content = append(r.content, p)
	return f.End, r.counted(1)
}

// reasoningPart reads the AI SDK reasoning part at b[i], the index-th of
// message msgIndex, as the block it stands for.
func (r *Request) reasoningPart(msgIndex, index, i int) (int, error) {
	f, err := readReasoning(r.body, i)
	if err != nil {
		return 0, err
	}
	p := part{typ: thinkingPart, span: span{Start: i, End: f.End}, thinking: span(f.Thinking), value: span(f.Signature), reasoning: true}
	if f.Kind == block.Redacted {
		p.typ, p.thinking, p.value = redactedPart, span{}, span(f.Data)
	}
	if err := r.addBlock(&p, f, msgIndex, index); err != nil {
		return 0, err
	}
	r.content = append(r.content, p)
	return f.End, r.counted(1)
}

// shape reports whether parts hold an AI SDK reasoning part, and whether
// they hold thinking after another block.
func shape(parts []part) (reasoning, misordered bool) {
	other := false
	for _, p := range parts {
		reasoning = reasoning || p.reasoning
		misordered = misordered || other && p.typ.isThinking()
		other = other || !p.typ.isThinking()
	}
	return reasoning, misordered
}

// partTypeOf maps a content block's type name to its partType.
func partTypeOf(name []byte) partType {
	switch string(name) {
	case "text":
		return textPart
	case "thinking":
		return thinkingPart
	case "redacted_thinking":
		return redactedPart
	case "tool_use":
		return toolUsePart
	case "tool_result":
		return toolResultPart
	}
	return otherPart
}

// addBlock records the thinking part p, located by f at content index
// index of message msg, as a Block with its key.
func (r *Request) addBlock(p *part, f block.Fields, msg, index int) error {
	key, scratch, ok := r.hasher.Key(r.body, f, r.scratch)
	r.scratch = scratch
	if !ok {
		return syntaxError(p.span.Start, "string fields in a thinking block")
	}
	p.block = len(r.blocks)
	sig := f.Signature.Of(r.body)
	thinking := f.Kind == block.Thinking
	r.blocks = append(r.blocks, Block{Kind: f.Kind, Message: int32(msg), Index: int32(index), Key: key,
		Synthesized: thinking && block.IsSynthesized(sig), Reasoning: thinking && block.IsReasoning(sig)})
	return nil
}

// hasToolResult reports whether message mi carries a tool_result block.
// The body was walked before, so it cannot be malformed here.
func (r *Request) hasToolResult(mi int) bool {
	m := r.msg(mi)
	if !m.contentArray {
		return false
	}
	it := jsonscan.Elements(r.body, m.content.Start)
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
