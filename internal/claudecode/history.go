package claudecode

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// GrowHistory returns a copy of the Messages request body grown to at least
// n bytes by inserting tool-loop turns shaped like Claude Code's before its
// final message: an assistant message with a signed thinking block (text
// omitted, as Claude Code asks) and a tool_use, and a user message with a
// tool_result of some 2 KiB. Every turn's signature is distinct. Benchmarks
// use it to make long sessions out of a captured request.
func GrowHistory(body []byte, n int) ([]byte, error) {
	start, end, err := messagesValue(body)
	if err != nil {
		return nil, err
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(body[start:end], &msgs); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	if len(msgs) == 0 {
		return nil, fmt.Errorf("messages: empty")
	}
	last := msgs[len(msgs)-1]
	msgs = msgs[:len(msgs)-1]
	size := len(body)
	for turn := 0; size < n; turn++ {
		sig := base64.StdEncoding.EncodeToString(bytes.Repeat(fmt.Appendf(nil, "sig-%06d|", turn), 24))
		assistant := fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":%q},{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":"ls -la"}}]}`, sig, turn)
		user := fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":%q}]}`, turn, strings.Repeat("total 42 drwxr-xr-x lorem ipsum\n", 60))
		msgs = append(msgs, json.RawMessage(assistant), json.RawMessage(user))
		size += len(assistant) + len(user) + 2
	}
	msgs = append(msgs, last)
	// Splice the new array in, every other byte as it was: the body keeps
	// the client's key order and escaping.
	out := append([]byte(nil), body[:start]...)
	out = append(out, '[')
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	out = append(out, ']')
	return append(out, body[end:]...), nil
}

// messagesValue returns where the value of the top-level messages member
// of body starts and ends.
func messagesValue(body []byte) (start, end int, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, fmt.Errorf("body is not a JSON object")
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, err
		}
		if key == "messages" {
			end := int(dec.InputOffset())
			return end - len(v), end, nil
		}
	}
	return 0, 0, fmt.Errorf("body has no messages")
}
