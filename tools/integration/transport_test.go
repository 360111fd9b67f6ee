package integration

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/transporttest"
)

// The transport_*_test.go files take a transport alone, with no Caddy
// around it, round a tool loop against a strict mock.

// message is a Messages answer as the tests read it.
type message struct {
	Content    []contentBlock `json:"content"`
	StopReason string         `json:"stop_reason"`
	Model      string         `json:"model"`
}

// toolLoopTools offers Bash to a tool loop's requests.
const toolLoopTools = `"tools":[{"name":"Bash","description":"Run","input_schema":{"type":"object","properties":{"command":{"type":"string"}}}}]`

// toolLoopStart is the first request of a tool loop: thinking on, Bash
// offered, a user asking for a call.
const toolLoopStart = `{"model":"claude-sonnet-4-5","max_tokens":100,"thinking":{"type":"enabled","budget_tokens":2048},` + toolLoopTools +
	`,"messages":[{"role":"user","content":"[tool] list files"}]}`

// startToolLoop sends toolLoopStart through tr to url and returns the
// answer, which must be a 200 (else the test fails, with what up refused
// last).
func startToolLoop(t *testing.T, tr http.RoundTripper, url string, up mockUpstream) (message, string) {
	t.Helper()
	resp, body := transporttest.Post(t, tr, url, toolLoopStart)
	var m message
	if err := json.Unmarshal([]byte(body), &m); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s\nupstream: %s", resp.StatusCode, body, lastError(up))
	}
	return m, body
}

// toolLoopResult is the second request of a tool loop, streamed: the first
// request's user message, the answer's content as it came, and a.txt as
// the result of its call callID.
func toolLoopResult(answer []contentBlock, callID string) string {
	assistant, _ := json.Marshal(answer)
	return `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"thinking":{"type":"enabled","budget_tokens":2048},` + toolLoopTools +
		`,"messages":[{"role":"user","content":"[tool] list files"},{"role":"assistant","content":` + string(assistant) +
		`},{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + callID + `","content":"a.txt"}]}]}`
}
