package llmtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash"
)

// The newest Anthropic models bind each thinking signature to the
// conversation it was produced in: the system prompt, the tools and every
// message before the answer. A later request whose prefix before the block
// differs (a message rewritten, a block added or dropped in an earlier
// message) is refused with "bound to a different conversation". A Strict
// Upstream does the same, so that a gateway that sends one backend a
// message in two ways over a conversation fails its tests as it would fail
// its users.

// prefixes returns the digest of the prefix before each message of req and
// after the last: prefixes[i] binds a block of messages[i]. The prefix is
// what the request means, not its bytes: prompt-caching marks move from
// request to request and are not part of it, and a string content is the
// text block it stands for (Claude Code sends the last user message as
// blocks, and the same message as a string once the history replays it).
func prefixes(req *request) [][]byte {
	h := sha256.New()
	writePart(h, req.system, textBlocks)
	writePart(h, req.tools, nil)
	out := make([][]byte, 0, len(req.rawMessages)+1)
	for _, m := range req.rawMessages {
		out = append(out, h.Sum(nil))
		writePart(h, m, contentBlocks)
	}
	return append(out, h.Sum(nil))
}

// textBlocks returns a string as the one text block it stands for.
func textBlocks(v any) any {
	if s, ok := v.(string); ok {
		return []any{map[string]any{"type": "text", "text": s}}
	}
	return v
}

// contentBlocks returns a message whose content is a string with that
// content as the one text block it stands for.
func contentBlocks(v any) any {
	if m, ok := v.(map[string]any); ok {
		if c, ok := m["content"]; ok {
			m["content"] = textBlocks(c)
		}
	}
	return v
}

// writePart writes one part of a prefix, canonical (see canonical) and
// normalized by norm when it is not nil, framed by its length, so that no
// two prefixes write the same bytes.
func writePart(h hash.Hash, raw json.RawMessage, norm func(any) any) {
	c := canonical(raw, norm)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(c)))
	h.Write(n[:])
	h.Write(c)
}

// canonical returns raw decoded, normalized by norm when it is not nil,
// and encoded again, without any cache_control member, with its object
// keys in order.
func canonical(raw json.RawMessage, norm func(any) any) []byte {
	if len(raw) == 0 {
		return nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return raw
	}
	if norm != nil {
		v = norm(v)
	}
	out, err := json.Marshal(withoutCacheControl(v))
	if err != nil {
		return raw
	}
	return out
}

// withoutCacheControl removes every cache_control member from v.
func withoutCacheControl(v any) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "cache_control")
		for k, e := range t {
			t[k] = withoutCacheControl(e)
		}
	case []any:
		for i, e := range t {
			t[i] = withoutCacheControl(e)
		}
	}
	return v
}
