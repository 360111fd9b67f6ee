package llmtest

import "bytes"

// promptCache is how an Upstream counts prompt caching in its usage when
// told to (see CountCache): per conversation, how many tokens of its
// prompt the last request wrote to the cache.
type promptCache map[string]int

// CountCache makes u count prompt caching in the usage of its answers, as
// the API does for a request with a cache breakpoint (a cache_control mark;
// Claude Code puts one on the last block of its last message). The prompt
// up to the breakpoint, in the API's order (tools, system, messages), is
// read from the cache as far as the conversation's previous request wrote
// it (cache_read_input_tokens) and written for the rest
// (cache_creation_input_tokens); input_tokens counts only what follows the
// breakpoint: docs.claude.com/en/docs/build-with-claude/prompt-caching,
// "Tracking cache performance". Tokens are bytes over four, as everywhere
// in this mock; a conversation is its X-Claude-Code-Session-Id.
func (u *Upstream) CountCache(on bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.cache = nil
	if on {
		u.cache = promptCache{}
	}
}

// count sets rep's usage for req, of size tokens in all, in conversation.
func (c promptCache) count(rep *reply, req *request, conversation string, size int) {
	prefix := len(req.tools) + len(req.system)
	marked := -1
	for _, m := range req.rawMessages {
		prefix += len(m)
		if bytes.Contains(m, []byte(`"cache_control"`)) {
			marked = prefix
		}
	}
	cached := 0
	if marked >= 0 {
		cached = min(marked/4, size)
	}
	read := min(c[conversation], cached)
	creation := cached - read
	c[conversation] = cached
	rep.inputTokens, rep.cacheRead, rep.cacheCreation = size-cached, &read, &creation
}
