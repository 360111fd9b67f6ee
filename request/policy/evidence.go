package policy

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// What the gateway learns of a backend's model changes what every client
// sends it, so it must come from the server's own words. Servers quote the
// request back in their refusals: the Messages API answers an unknown
// block type with "messages.N.content.M: Input tag '<type>' found using
// 'type' does not match any of the expected tags: ...", pydantic servers
// name unknown fields in their paths ("<path>.<field>: Extra inputs are not
// permitted"), OpenAI quotes parameter names, the Messages API beta headers.
// A client that writes "x does not support thinking" as a block type would
// otherwise teach the gateway that the model cannot think, for everybody.
// So a wording counts only where the message says it outside of what the
// request carried (evidence), and a fact learned from it applies to other
// requests only once the repaired replay succeeded (see Policy.Confirm).

// evidence is a refusal's message read against the request it refuses.
type evidence struct {
	msg string
	// quoted are the spans of msg that are text the request carried, as
	// [start, end) pairs: a whole string of the body (a key or a value)
	// or a header value, found in msg; or a quotation of one cut short
	// ("'...'" ending in an ellipsis).
	quoted [][2]int
}

// minQuoted is the shortest text of a request that can hold a wording by
// itself: the shortest wording of capabilityRefusals is longer.
const minQuoted = 8

// newEvidence reads msg against the body and header of the request it
// refuses; with neither, every word of msg is the server's.
func newEvidence(msg string, body []byte, header http.Header) evidence {
	e := evidence{msg: msg}
	if len(body) == 0 && len(header) == 0 {
		return e
	}
	cut := cutQuotations(msg)
	var buf []byte
	see := func(s []byte) {
		if len(s) < minQuoted {
			return
		}
		e.mark(string(s))
		for i, c := range cut {
			if c.text != "" && bytes.Contains(s, []byte(c.text)) {
				e.quoted = append(e.quoted, c.span)
				cut[i].text = ""
			}
		}
	}
	for i := 0; i < len(body); {
		j := bytes.IndexByte(body[i:], '"')
		if j < 0 {
			break
		}
		start := i + j
		end, ok := jsonscan.SkipString(body, start)
		if !ok {
			break
		}
		if end-start-2 >= minQuoted {
			var decoded bool
			buf, decoded = jsonstr.Append(buf[:0], body[start:end])
			if decoded {
				see(buf)
			}
		}
		i = end
	}
	for _, vs := range header {
		for _, v := range vs {
			// Lists (anthropic-beta) are quoted item by item.
			for item := range strings.SplitSeq(v, ",") {
				see([]byte(strings.TrimSpace(item)))
			}
			see([]byte(v))
		}
	}
	return e
}

// mark records every place s appears in the message as quoted.
func (e *evidence) mark(s string) {
	for at := 0; ; {
		i := strings.Index(e.msg[at:], s)
		if i < 0 {
			return
		}
		e.quoted = append(e.quoted, [2]int{at + i, at + i + len(s)})
		at += i + 1
	}
}

// quotation is a quotation in a message that ends in an ellipsis: a server
// that quotes a long value cuts it short.
type quotation struct {
	span [2]int
	text string // what is quoted, without the ellipsis
}

// cutQuotations returns the quotations of msg cut short: text between a
// quote character (' " `) and the next one, ending in "..." or "…".
func cutQuotations(msg string) []quotation {
	var out []quotation
	for _, q := range []byte{'\'', '"', '`'} {
		for at := 0; ; {
			open := strings.IndexByte(msg[at:], q)
			if open < 0 {
				break
			}
			open += at
			n := strings.IndexByte(msg[open+1:], q)
			if n < 0 {
				break
			}
			closing := open + 1 + n
			text := msg[open+1 : closing]
			if t, ok := strings.CutSuffix(text, "..."); ok {
				out = append(out, quotation{span: [2]int{open + 1, closing}, text: t})
			} else if t, ok := strings.CutSuffix(text, "…"); ok {
				out = append(out, quotation{span: [2]int{open + 1, closing}, text: t})
			}
			at = closing + 1
		}
	}
	return out
}

// has reports whether the server says piece: somewhere in the message that
// is not inside text the request carried. A piece that starts with '^'
// names a top-level field: it must start the message or follow a
// character that cannot continue a field's path (a server's path to a
// field of the client's own, "messages.0.content.0.thinking", is not the
// thinking config).
func (e evidence) has(piece string) bool {
	piece, top := strings.CutPrefix(piece, "^")
	for at := 0; ; {
		i := strings.Index(e.msg[at:], piece)
		if i < 0 {
			return false
		}
		p := at + i
		q := p + len(piece)
		at = p + 1
		if top && p > 0 && pathChar(e.msg[p-1]) {
			continue
		}
		if !e.inQuote(p, q) {
			return true
		}
	}
}

// inQuote reports whether msg[p:q] is text the request carried: it lies
// within such text, or begins inside it ("...thinking.<a key of the
// client's ending in thinking>: Extra inputs are not permitted"). Text of
// the request's that begins the piece (a field the server names: the
// request's "context_management") or lies within it (the value it quotes:
// 'adaptive') leaves it the server's.
func (e evidence) inQuote(p, q int) bool {
	for _, s := range e.quoted {
		if s[0] <= p && q <= s[1] || s[0] < p && p < s[1] {
			return true
		}
	}
	return false
}

// pathChar reports whether c can be part of a field's path.
func pathChar(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
