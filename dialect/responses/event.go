package responses

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// event is what the translation reads of one event of a Responses stream,
// in one walk over its members.
type event struct {
	typ                                      []byte // the event's type, as written
	delta, item, response, code, message, er jsonscan.Value
}

// readEvent reads the members of the event data b, a JSON object, and
// reports whether it walked it to its end. A member given twice counts by
// its last occurrence.
//
// The walk is all that is checked of an event: the values the translation
// passes on as they are (text, arguments, names) are checked where it
// does (see literal), and the rest only read. An event of text costs one
// walk, not a validation of all of it first.
func readEvent(b []byte) (event, bool) {
	var e event
	var name [32]byte
	it := jsonscan.Members(b, 0)
	for key, start, ok := it.Next(); ok; key, start, ok = it.Next() {
		var v *jsonscan.Value
		switch string(jsonscan.Name(key, &name)) {
		case "type":
			if t := value(&it, b, start); t.Kind() == jsonscan.String {
				e.typ = t[1 : len(t)-1]
				if bytes.IndexByte(e.typ, '\\') >= 0 {
					e.typ = t.Text() // escaped: no type the translation knows is
				}
			}
			continue
		case "delta":
			v = &e.delta
		case "item":
			v = &e.item
		case "response":
			v = &e.response
		case "code":
			v = &e.code
		case "message":
			v = &e.message
		case "error":
			v = &e.er
		default:
			continue
		}
		*v = value(&it, b, start)
	}
	return e, it.Err() == nil
}

// literal reports whether v is a valid string literal, which the
// translation may pass on as it is.
func literal(v jsonscan.Value) bool { return v.Kind() == jsonscan.String && jsonscan.Valid(v) }

// value passes over the iterator's current value, which starts at b[start],
// and returns it.
func value(it *jsonscan.Iter, b []byte, start int) jsonscan.Value {
	end, ok := it.Skip()
	if !ok {
		return nil
	}
	return jsonscan.Value(b[start:end])
}
