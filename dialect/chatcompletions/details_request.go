package chatcompletions

import (
	"bytes"
	"crypto/sha256"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/toolcall"
)

// skipSignature is the dummy Google documents for a function call Gemini
// did not make (https://ai.google.dev/gemini-api/docs/thought-signatures),
// in a reasoning.encrypted part as OpenRouter takes one: one per assistant
// message, the first call's id, index 0 (Roo-Code #10640).
const skipSignature = `{"type":"reasoning.encrypted","data":"skip_thought_signature_validator","id":`

// isGemini reports whether the server serves model as a Gemini model, which
// refuses a function call without a thought signature: its name holds
// "gemini", in any case.
func isGemini(model string) bool {
	const name = "gemini"
	for i := 0; i+len(name) <= len(model); i++ {
		if strings.EqualFold(model[i:i+len(name)], name) {
			return true
		}
	}
	return false
}

// envelopeBufs are where a request's translation reads the envelopes of
// its blocks: their text, their signature and the payload.
type envelopeBufs struct {
	text, sig []byte
	payload   detailsPayload
}

// detailsWriter writes the reasoning_details of one assistant message.
type detailsWriter struct {
	w         *requestWriter
	n         int  // parts written
	encrypted bool // a reasoning.encrypted part was written
}

// next opens the array, or separates a part from the one before.
func (d *detailsWriter) next() {
	if d.n == 0 {
		d.w.Raw(`,"reasoning_details":[`)
	} else {
		d.w.Raw(",")
	}
	d.n++
}

// details writes the reasoning_details of an assistant message, in the
// order of its thinking blocks: the parts each block's envelope carries,
// as the upstream gave them; the text of a block this server's reasoning
// made without parts as one reasoning.text part. A block whose envelope
// does not open (another upstream's, forged, altered) gives nothing. For
// a Gemini model, a message with tool calls that carries no
// reasoning.encrypted part (calls another backend made, or whose part was
// refused) gets the dummy on its first call: the same bytes on every
// request, whether the call is in the current turn or not.
func (w *requestWriter) details(content, firstCall jsonscan.Value) {
	d := detailsWriter{w: w}
	var name [32]byte
	for b := range content.Elements() {
		if string(b.Get("type").Name(&name)) != "thinking" {
			continue
		}
		sig := b.Get("signature")
		switch {
		case sig.Kind() != jsonscan.String:
		case w.opts.Details.Mine(sig[1:]):
			d.parts(b, sig)
		case legacyReasoning(sig):
			if t := b.Get("thinking"); t.Kind() == jsonscan.String && len(t) > 2 {
				d.next()
				w.Raw(`{"type":"reasoning.text","text":`)
				w.Str(t)
				w.Raw("}")
			}
		}
	}
	if firstCall.Exists() && !d.encrypted && w.gemini {
		d.next()
		w.Raw(skipSignature)
		w.Str(toolcall.IDOf(firstCall.Get("id")))
		w.Raw(`,"format":"google-gemini-v1","index":0}`)
	}
	if d.n > 0 {
		w.Raw("]")
	}
}

// legacyReasoning reports whether a signature literal is the reasoning
// signature of a block without parts (see DefaultSign), not an envelope
// (whose provider name a '.' ends, which base64url never holds).
func legacyReasoning(sig jsonscan.Value) bool {
	return block.IsReasoning(sig) && !bytes.ContainsRune(sig[1+len(block.ReasoningPrefix):len(sig)-1], '.')
}

// parts writes the parts a thinking block's envelope carries.
func (d *detailsWriter) parts(b, sigLit jsonscan.Value) {
	w := d.w
	if w.env == nil {
		w.env = new(envelopeBufs)
	}
	e := w.env
	var text, sig []byte
	var ok bool
	if t := b.Get("thinking"); t.Kind() == jsonscan.String {
		if text, e.text, ok = jsonstr.Value(e.text[:0], t); !ok {
			return
		}
	}
	if sig, e.sig, ok = jsonstr.Value(e.sig[:0], sigLit); !ok {
		return
	}
	place, payload, ok := w.opts.Details.Open(sha256.Sum256(text), sig)
	p := &e.payload
	if !ok || place != envelope.OnBlock || !p.parse(payload, len(text)) {
		return
	}
	k := 0
	for v := range p.parts.Elements() {
		d.next()
		d.encrypted = d.encrypted || v.Get("type").Is("reasoning.encrypted")
		tm := textMember(v)
		if tm < 0 {
			w.RawBytes(v)
			k++
			continue
		}
		w.Raw("{")
		i := 0
		it := jsonscan.Members(v, 0)
		for key, val, ok := it.Item(); ok; key, val, ok = it.Item() {
			if i > 0 {
				w.Raw(",")
			}
			w.RawBytes(key)
			w.Raw(":")
			if i == tm {
				w.Raw(`"`)
				off := 0
				for _, s := range p.segs {
					if s.part == k {
						w.Escaped(text[off : off+s.n])
					}
					off += s.n
				}
				w.Raw(`"`)
			} else {
				w.RawBytes(val)
			}
			i++
		}
		w.Raw("}")
		k++
	}
}
