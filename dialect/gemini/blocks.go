package gemini

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"hash"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolargs"
)

// kind is the kind of the open content block.
type kind uint8

const (
	none kind = iota
	thinkingBlock
	textBlock
)

// sink receives the content blocks of an answer as they are made: as the
// events of a stream, or into a JSON message.
type sink interface {
	// open starts a thinking or text block.
	open(k kind)
	// delta adds to the open block the value of the string literal lit.
	delta(k kind, lit []byte)
	// close ends the open block; a thinking block with its signature.
	close(k kind, signature string)
	// thinking adds a whole thinking block of no text.
	thinking(signature string)
	// tool adds a whole tool_use block.
	tool(id []byte, name jsonscan.Value, input []byte)
}

// blocks turns the parts of Gemini's answer into Messages content blocks,
// part by part as they come, streamed or not, so that both give the same
// blocks (and so the same block keys): consecutive thought parts make one
// thinking block, consecutive text parts one text block; a signature on a
// thought ends its block with it (envelope.OnBlock), one on a function call
// or on the first part of a text rides in an empty thinking block just
// before it (envelope.OnFollowing).
type blocks struct {
	opts  AnswerOptions
	out   sink
	open  kind
	think hash.Hash // the open thinking block's text
	sig   []byte    // the signature of its thought, when it came
	calls int
	// answered says the answer gave text or a call: one that gave
	// neither, with a finish reason of failure, is a NoAnswer.
	answered bool

	hasSig  bool
	scratch []byte
}

func newBlocks(opts AnswerOptions, out sink) blocks {
	return blocks{opts: opts, out: out, think: sha256.New()}
}

// part takes one part of the answer.
func (b *blocks) part(p *partFields) {
	fc, text, thought := p.call, p.text, p.thought
	sig, signed := b.signatureOf(p.signature)
	if fc.Kind() == jsonscan.Object {
		b.closeOpen()
		if signed {
			b.signatureBlock(envelope.OnFollowing, sig)
		}
		b.call(fc)
		return
	}
	// A text that is not a valid literal (bytes that are not UTF-8, a raw
	// control character) is carried repaired (see sink.delta), never
	// dropped: the same on both paths.
	hasText := len(text) > 2 && text.Kind() == jsonscan.String
	if thought.Bool() {
		if b.open != thinkingBlock || b.hasSig {
			b.closeOpen()
			b.start(thinkingBlock)
		}
		if hasText {
			b.thinkingDelta(text)
		}
		if signed {
			b.sig, b.hasSig = append(b.sig[:0], sig...), true
		}
		return
	}
	if signed && b.open != textBlock {
		// The signature of a text part rides before its text, as a call's
		// does. One that comes after text of its block was streamed (the
		// empty last part of a streamed answer without calls) is dropped:
		// a block after the text would hide the answer from Claude Code,
		// which shows a message's last block, and Gemini does not check
		// these.
		b.closeOpen()
		b.signatureBlock(envelope.OnFollowing, sig)
		if !hasText {
			return
		}
	}
	if hasText {
		if b.open != textBlock {
			b.closeOpen()
			b.start(textBlock)
		}
		b.answered = true
		b.out.delta(textBlock, text)
	}
}

// signatureOf returns the value of a part's thoughtSignature.
func (b *blocks) signatureOf(lit jsonscan.Value) ([]byte, bool) {
	if lit.Kind() != jsonscan.String || len(lit) <= 2 {
		return nil, false
	}
	sig, buf, ok := jsonstr.Value(b.scratch[:0], lit)
	b.scratch = buf
	return sig, ok
}

func (b *blocks) start(k kind) {
	b.open = k
	if k == thinkingBlock {
		b.think.Reset()
		b.sig, b.hasSig = b.sig[:0], false
	}
	b.out.open(k)
}

// thinkingDelta adds a thought's text, hashed as the client decodes what
// it gets: the literal's value, or, for one whose escapes are broken, the
// value of its repair (see jsonstr.Requote).
func (b *blocks) thinkingDelta(text jsonscan.Value) {
	v, buf, ok := jsonstr.Value(b.scratch[:0], text)
	b.scratch = buf
	if !ok {
		v, _ = jsonstr.Append(nil, append(jsonstr.RequoteAll([]byte{'"'}, text[1:len(text)-1]), '"'))
	}
	b.think.Write(v)
	b.out.delta(thinkingBlock, text)
}

// closeOpen ends the open block; a thinking block is signed with the
// envelope of its thought's signature, or of none.
func (b *blocks) closeOpen() {
	switch b.open {
	case none:
		return
	case thinkingBlock:
		var sum [sha256.Size]byte
		b.think.Sum(sum[:0])
		b.out.close(thinkingBlock, b.opts.Signer.Seal(envelope.OnBlock, sum, b.sig))
	default:
		b.out.close(b.open, "")
	}
	b.open = none
}

// signatureBlock adds an empty thinking block carrying sig.
func (b *blocks) signatureBlock(place envelope.Place, sig []byte) {
	b.out.thinking(b.opts.Signer.Seal(place, sha256.Sum256(nil), sig))
}

// call adds the tool_use of a function call: its id is Gemini's, marked so
// that it goes back to Gemini, or one of the translation's; its input the
// arguments as Gemini wrote them (see input).
func (b *blocks) call(fc jsonscan.Value) {
	b.calls++
	b.answered = true
	var idBuf [96]byte
	id := append(idBuf[:0], geminiIDPrefix...)
	if v := fc.Get("id"); v.Kind() == jsonscan.String && plainID(v[1:len(v)-1]) {
		id = append(id, v[1:len(v)-1]...)
	} else {
		var r [12]byte
		_, _ = rand.Read(r[:])
		id = base64.RawURLEncoding.AppendEncode(append(id[:0], mintedIDPrefix...), r[:])
	}
	b.out.tool(id, fc.Get("name"), input(fc.Get("args")))
}

// input returns the tool_use input of a call's args: the args, when they
// are a valid JSON object a message can hold (see toolargs.MaxDepth), each
// byte that is not UTF-8 as U+FFFD (JSON.parse and Python's json read
// UTF-8 strictly, see jsonstr.ValidUTF8); {}
// for none (or null); anything else, arguments nested deeper or holding
// bytes that are not JSON, as {"raw_arguments": "<the text>"}, as the
// other translations keep arguments that are not an object: never {} in
// their place.
func input(args jsonscan.Value) []byte {
	switch {
	case len(args) == 0 || string(args) == "null":
		return []byte("{}")
	case args[0] == '{' && jsonscan.Valid(args) && toolargs.Fits(args):
		return jsonstr.ValidUTF8(args)
	}
	return toolargs.Raw(args)
}

// plainID reports whether id may be a tool_use id as it is: letters,
// digits, '_' and '-', at most 64 of them.
func plainID(id []byte) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// finish ends the last block.
func (b *blocks) finish() { b.closeOpen() }
