package chatcompletions

import (
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// usage is a chat-completions usage object, as far as the Messages API has
// a place for it.
type usage struct {
	prompt, completion, cached int
	seen                       bool
}

// read takes the counts of a usage object; anything else leaves u as it
// was.
func (u *usage) read(obj []byte) {
	if len(obj) == 0 || obj[0] != '{' {
		return
	}
	u.seen = true
	var buf [32]byte
	it := jsonscan.Members(obj, 0)
	for key, v, ok := it.Item(); ok; key, v, ok = it.Item() {
		switch string(jsonscan.Name(key, &buf)) {
		case "prompt_tokens":
			u.prompt = count(v)
		case "completion_tokens":
			u.completion = count(v)
		case "prompt_cache_hit_tokens": // DeepSeek
			u.cached = max(u.cached, count(v))
		case "prompt_tokens_details":
			if len(v) > 0 && v[0] == '{' {
				d := jsonscan.Members(v, 0)
				for k, dv, ok := d.Item(); ok; k, dv, ok = d.Item() {
					if string(jsonscan.Name(k, &buf)) == "cached_tokens" {
						u.cached = max(u.cached, count(dv))
					}
				}
			}
		}
	}
}

// count reads a token count: a non-negative integer, else 0.
func count(v []byte) int {
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' || n > 1<<40 {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// messages returns the Messages usage: input tokens are the prompt's less
// what was read from the cache, never below 0.
func (u usage) messages() messagesapi.Usage {
	cached := min(u.cached, u.prompt)
	return messagesapi.Usage{Input: u.prompt - cached, Output: u.completion, CacheRead: cached}
}
