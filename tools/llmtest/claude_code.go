package llmtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// What Claude Code 2.1.328 sends besides the conversation itself, reduced
// to one tool and a one-line system prompt (see
// shared/fixtures/claude-code-2.1.328).
const (
	claudeCodeSystem            = `[{"type":"text","text":"You are Claude Code, Anthropic's official CLI for Claude."}]`
	claudeCodeTools             = `[{"name":"Bash","description":"Executes a given bash command and returns its output.","input_schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"command":{"description":"The command to execute","type":"string"},"timeout":{"description":"Optional timeout in milliseconds (max 600000)","type":"number"},"description":{"description":"Clear, concise description of what this command does in active voice.","type":"string"}},"required":["command"],"additionalProperties":false}}]`
	claudeCodeContextManagement = `{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]}`
	claudeCodeMaxTokens         = "32000"
	defaultModel                = "claude-sonnet-4-5"
)

// claudeCodeHeaders are the request headers of capture-headers.json, less
// the ones the transport sets (Connection, Content-Length).
var claudeCodeHeaders = [][2]string{
	{"Accept", "application/json"},
	{"Accept-Encoding", "gzip, deflate, br, zstd"},
	{"Anthropic-Beta", "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20"},
	{"Anthropic-Dangerous-Direct-Browser-Access", "true"},
	{"Anthropic-Version", "2023-06-01"},
	{"Content-Type", "application/json"},
	{"User-Agent", "claude-cli/2.1.328 (external, sdk-cli)"},
	{"X-Api-Key", "sk-test"},
	{"X-App", "cli"},
	{"X-Stainless-Arch", "x64"},
	{"X-Stainless-Lang", "js"},
	{"X-Stainless-Os", "Linux"},
	{"X-Stainless-Package-Version", "0.128.0"},
	{"X-Stainless-Retry-Count", "0"},
	{"X-Stainless-Runtime", "node"},
	{"X-Stainless-Runtime-Version", "v26.12.1"},
	{"X-Stainless-Timeout", "30"},
}

// thinkingConfig is the thinking object Claude Code sends for the mode
// ("enabled", "adaptive", "disabled"); show leaves out display "omitted".
func thinkingConfig(mode string, show bool) string {
	display := `,"display":"omitted"`
	if show {
		display = ""
	}
	switch mode {
	case "enabled":
		return `{"budget_tokens":31999,"type":"enabled"` + display + `}`
	case "adaptive":
		return `{"type":"adaptive"` + display + `}`
	}
	return string(claudecode.AppendString([]byte(`{"type":`), mode)) + `}`
}

// userID is metadata.user_id as 2.1.x writes it: a JSON string holding JSON.
// The device id is derived from the session so bodies are reproducible.
func userID(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	b := []byte(`{"device_id":"` + hex.EncodeToString(sum[:]) + `","account_uuid":"","session_id":`)
	b = claudecode.AppendString(b, sessionID)
	return string(append(b, '}'))
}

func setClaudeCodeHeaders(h http.Header, sessionID, agentID string, extra http.Header) {
	for _, kv := range claudeCodeHeaders {
		h.Set(kv[0], kv[1])
	}
	if sessionID != "" {
		h.Set("X-Claude-Code-Session-Id", sessionID)
	}
	if agentID != "" {
		h.Set("X-Claude-Code-Agent-Id", agentID)
	}
	for k, vs := range extra {
		h.Del(k)
		for _, v := range vs {
			h.Add(k, v)
		}
	}
}

// cacheMark is what Claude Code adds to the last content block of the last
// message.
const cacheMark = `,"cache_control":{"type":"ephemeral"}`

// withCacheMark returns msg with its last content block marked for caching,
// or msg itself when its content is not an array of objects.
func withCacheMark(msg json.RawMessage) json.RawMessage {
	if !bytes.HasSuffix(msg, []byte("}]}")) {
		return msg
	}
	end := len(msg) - len("]}")
	out := make([]byte, 0, len(msg)+len(cacheMark))
	out = append(append(append(out, msg[:end-1]...), cacheMark...), msg[end-1:]...)
	return out
}
