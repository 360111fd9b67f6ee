package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// The observers read the few fields they need straight from the JSON bytes
// with internal/jsonscan: encoding/json allocates for every event, and gjson
// for every string that holds an escape, which most thinking text does. The
// scanner is lenient about what it skips and exact about the strings it hands
// out, which are decoded with block.AppendString. Like JSON.parse in the
// client, callers take the last of duplicate keys and match keys by their
// decoded value.

// members returns an iterator over the object b.
func members(b []byte) jsonscan.Iter { return jsonscan.Members(b, jsonscan.SkipSpace(b, 0)) }

// readBlock reads a content block object, as content_block_start carries it
// and as a JSON response's content array holds it. It reports false when
// the object is malformed.
func readBlock(obj []byte) (block.Fields, bool) {
	var buf [32]byte
	f, err := block.ReadFields(obj, jsonscan.SkipSpace(obj, 0), &buf)
	return f, err == nil
}
