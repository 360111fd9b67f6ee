package thinking

import (
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Clients built on AI SDKs keep an assistant's reasoning as content parts of
// type "reasoning" (or "reasoning-delta", a streamed piece of one) and send
// them back in that shape. The Messages API knows only "thinking" and
// "redacted_thinking" blocks, so such a part is read as the thinking block it
// stands for, decided like any other, and sent in the API's shape:
//
//	{"type":"reasoning","text":"…","providerOptions":{"anthropic":{"signature":"…"}}}
//	→ {"type":"thinking","thinking":"…","signature":"…"}
//
// and a part whose provider options carry "redactedData" becomes a
// redacted_thinking block. The text is the first string of "text" (AI SDK
// 5), "reasoning" (AI SDK 4), "thinking" and "delta" (a reasoning-delta);
// the signature the first of "signature" and the "anthropic" signature in
// "providerOptions", then "providerMetadata"; redacted data comes from the
// same provider fields. Members that are not strings are passed over, and a
// repeated member counts as its last occurrence.

// isReasoning reports whether a content block's type names an AI SDK
// reasoning part.
func isReasoning(typ []byte) bool {
	return string(typ) == "reasoning" || string(typ) == "reasoning-delta"
}

// readReasoning reads the reasoning part at b[i] as the block it stands
// for: the spans of its text and signature literals, or of its redacted
// data.
func readReasoning(b []byte, i int) (block.Fields, error) {
	// Candidates by name, in the order of preference above.
	var texts [4]block.Span      // text, reasoning, thinking, delta
	var sigs, data [3]block.Span // signature, providerOptions, providerMetadata
	it := jsonscan.Members(b, i)
	var name [32]byte
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, ok := it.Skip()
		if !ok {
			break
		}
		val, str := block.Span{Start: v, End: end}, b[v] == '"'
		switch n := string(jsonscan.Name(key, &name)); n {
		case "text", "reasoning", "thinking", "delta":
			texts[slices.Index(textNames, n)] = ifString(val, str)
		case "signature":
			sigs[0] = ifString(val, str)
		case "providerOptions", "providerMetadata":
			at := 1 + slices.Index(providerNames, n)
			sigs[at], data[at] = block.Span{}, block.Span{}
			if b[v] == '{' {
				if err := readProviderFields(b, v, &sigs[at], &data[at]); err != nil {
					return block.Fields{}, err
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		return block.Fields{}, err
	}
	f := block.Fields{Kind: block.Thinking, End: it.End(), Thinking: first(texts[:]), Signature: first(sigs[:]), Data: first(data[1:])}
	if f.Data.End != 0 {
		f.Kind = block.Redacted
	}
	return f, nil
}

var (
	textNames     = []string{"text", "reasoning", "thinking", "delta"}
	providerNames = []string{"providerOptions", "providerMetadata"}
)

// ifString returns s when str is true, else no span.
func ifString(s block.Span, str bool) block.Span {
	if !str {
		return block.Span{}
	}
	return s
}

// first returns the first span that is set, or none.
func first(spans []block.Span) block.Span {
	for _, s := range spans {
		if s.End != 0 {
			return s
		}
	}
	return block.Span{}
}

// readProviderFields reads the signature and redacted data an AI SDK keeps
// for Anthropic in the provider options object at b[i].
func readProviderFields(b []byte, i int, sig, data *block.Span) error {
	providers := jsonscan.Members(b, i)
	var name [32]byte
	for key, v, ok := providers.Next(); ok; key, v, ok = providers.Next() {
		if string(jsonscan.Name(key, &name)) != "anthropic" {
			continue
		}
		*sig, *data = block.Span{}, block.Span{}
		if b[v] != '{' {
			continue
		}
		fields := jsonscan.Members(b, v)
		for key, w, ok := fields.Next(); ok; key, w, ok = fields.Next() {
			end, ok := fields.Skip()
			if !ok {
				break
			}
			val, str := block.Span{Start: w, End: end}, b[w] == '"'
			switch string(jsonscan.Name(key, &name)) {
			case "signature":
				*sig = ifString(val, str)
			case "redactedData":
				*data = ifString(val, str)
			}
		}
		if err := fields.Err(); err != nil {
			return err
		}
		providers.SetEnd(fields.End())
	}
	return providers.Err()
}

// appendNormalized appends the API's shape of the reasoning part p to dst:
// a redacted_thinking block, or a thinking block, with its signature unless
// signed is false.
func (r *Request) appendNormalized(dst []byte, p part, signed bool) []byte {
	if p.typ == redactedPart {
		dst = append(dst, `{"type":"redacted_thinking","data":`...)
		return append(append(dst, p.value.Of(r.body)...), '}')
	}
	dst = append(dst, `{"type":"thinking","thinking":`...)
	if p.thinking.End != 0 {
		dst = append(dst, p.thinking.Of(r.body)...)
	} else {
		dst = append(dst, `""`...)
	}
	if signed && p.value.End != 0 {
		dst = append(dst, `,"signature":`...)
		dst = append(dst, p.value.Of(r.body)...)
	}
	return append(dst, '}')
}

// thinkingFirst moves the thinking pieces of pl before every other piece,
// keeping the order within both groups, and reports whether anything moved.
func thinkingFirst(pl []piece) bool {
	moved := false
	for i := 1; i < len(pl); i++ {
		if !pl[i].typ.isThinking() || pl[i-1].typ.isThinking() {
			continue
		}
		// pl[:i] ends in a piece that is not thinking: bubble pl[i] back
		// past every such piece before it.
		j := i
		for j > 0 && !pl[j-1].typ.isThinking() {
			pl[j-1], pl[j] = pl[j], pl[j-1]
			j--
		}
		moved = true
	}
	return moved
}

// shapes counts the assistant messages that hold AI SDK reasoning parts, and
// those that hold thinking after another block.
type shapes struct{ reasoning, misordered int }

// count adds n to the counts m is in.
func (s *shapes) count(m message, n int) {
	if m.reasoning {
		s.reasoning += n
	}
	if m.misordered {
		s.misordered += n
	}
}

// add adds the counts of o.
func (s *shapes) add(o shapes) {
	s.reasoning += o.reasoning
	s.misordered += o.misordered
}

// reorderAt returns the message whose thinking must move to the front
// although it holds no reasoning part, or -1: the first assistant message of
// a trailing tool loop, which the API wants to start with thinking while
// thinking is on. Thinking after other blocks elsewhere is left alone: a
// response may hold it, and the latest one must come back as it was.
func (r *Request) reorderAt() int {
	if r.shapes.misordered == 0 || !thinkingOn(string(r.thinkingType)) {
		return -1
	}
	if _, first := r.finalTurn(); first >= 0 && r.msg(first).misordered {
		return first
	}
	return -1
}
