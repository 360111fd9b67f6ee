package observe

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// Usage is what an answer's usage counts of tokens.
type Usage struct {
	Input, Output, CacheRead, CacheCreation int64
}

// Any reports whether u counts anything.
func (u Usage) Any() bool { return u.Input|u.Output|u.CacheRead|u.CacheCreation != 0 }

// read sets the counts the usage object obj names, leaving the others: a
// stream's message_delta carries cumulative counts that replace those of
// its message_start, and may name only some. Counts that are not
// non-negative integers are passed over.
func (u *Usage) read(obj []byte) {
	if len(obj) == 0 || obj[0] != '{' {
		return
	}
	var name [32]byte
	it := members(obj)
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		var dst *int64
		switch string(jsonscan.Name(k, &name)) {
		case "input_tokens":
			dst = &u.Input
		case "output_tokens":
			dst = &u.Output
		case "cache_read_input_tokens":
			dst = &u.CacheRead
		case "cache_creation_input_tokens":
			dst = &u.CacheCreation
		default:
			continue
		}
		if n := jsonscan.Value(v).Int(); n >= 0 && jsonscan.Value(v).Kind() == jsonscan.Number {
			*dst = n
		}
	}
}
