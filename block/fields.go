package block

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// Span is a half-open byte range of a JSON body. The zero Span stands for a
// member that is absent.
type Span struct{ Start, End int }

// Of returns the bytes of b in s.
func (s Span) Of(b []byte) []byte { return b[s.Start:s.End] }

// Fields locates the members of one content block object that tell what the
// block is and what identifies it. Requests replaying a block and responses
// producing it are read through ReadFields alike, so both sides agree on
// every block. Like JSON.parse in the client, the last of duplicate keys
// wins and keys match by their decoded value.
type Fields struct {
	// Kind is Thinking or Redacted, or 0 for any other type of block.
	Kind Kind
	// Type is the decoded type name, nil when it is not a string. It lives
	// in the object or in the buffer given to ReadFields.
	Type []byte
	// Thinking, Signature and Data are the literals of those members.
	Thinking, Signature, Data Span
	// SignatureMember runs from the signature's key to the end of its value.
	SignatureMember Span
	// Members counts the object's members.
	Members int
	// End is the index just past the object.
	End int
}

// ReadFields reads the content block object that starts at b[i]. buf holds
// an escaped type name while the Fields are in use.
func ReadFields(b []byte, i int, buf *[32]byte) (Fields, error) {
	var f Fields
	var typ []byte
	var name [32]byte
	it := jsonscan.Members(b, i)
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		f.Members++
		member := jsonscan.Name(key, &name)
		switch string(member) {
		case "type", "thinking", "signature", "data":
		default:
			continue
		}
		end, ok := it.Skip()
		if !ok {
			break
		}
		switch s := (Span{v, end}); string(member) {
		case "type":
			typ = s.Of(b)
		case "thinking":
			f.Thinking = s
		case "signature":
			f.Signature, f.SignatureMember = s, Span{it.KeyOffset(), end}
		case "data":
			f.Data = s
		}
	}
	if err := it.Err(); err != nil {
		return f, err
	}
	f.End = it.End()
	f.Type = jsonscan.Name(typ, buf)
	switch string(f.Type) {
	case "thinking":
		f.Kind = Thinking
	case "redacted_thinking":
		f.Kind = Redacted
	}
	return f, nil
}

// Key returns the key of the thinking or redacted_thinking block that f
// locates in b. Strings with escapes are decoded into scratch, which Key
// returns for reuse. It reports false when a string it must hash is
// malformed.
func (h *Hasher) Key(b []byte, f Fields, scratch []byte) (Key, []byte, bool) {
	if f.Kind == Redacted {
		data, scratch, ok := value(scratch[:0], f.Data.Of(b))
		if !ok {
			return Key{}, scratch, false
		}
		return h.Redacted(data), scratch, true
	}
	h.Reset()
	scratch, ok := h.WriteString(scratch, f.Thinking.Of(b))
	if !ok {
		return Key{}, scratch, false
	}
	sig, scratch, ok := value(scratch[:0], f.Signature.Of(b))
	if !ok {
		return Key{}, scratch, false
	}
	return h.Thinking(sig), scratch, true
}

// WriteString decodes the JSON string literal lit (using scratch when it
// has escapes) and adds it to the thinking text. A whole text and the pieces
// thinking_delta events carry go through here alike.
func (h *Hasher) WriteString(scratch, lit []byte) ([]byte, bool) {
	text, scratch, ok := value(scratch[:0], lit)
	if ok {
		h.Write(text)
	}
	return scratch, ok
}

// AppendString decodes the JSON string literal lit onto dst. An absent
// member (empty lit) or a null decodes as the empty string, as servers omit
// or null a block's signature; any other value that is not a well-formed
// string literal reports false.
func AppendString(dst, lit []byte) ([]byte, bool) {
	if len(lit) == 0 || string(lit) == "null" {
		return dst, true
	}
	return jsonstr.Append(dst, lit)
}

// value is AppendString without a copy when the literal needs no decoding.
func value(dst, lit []byte) (v, buf []byte, ok bool) {
	if len(lit) == 0 || string(lit) == "null" {
		return nil, dst, true
	}
	return jsonstr.Value(dst, lit)
}
