package llmtest

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
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
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
	var err error
	if req["messages"], err = json.Marshal(msgs); err != nil {
		return nil, err
	}
	return json.Marshal(req)
}
