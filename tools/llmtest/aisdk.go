package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// AISDKHistory returns msgs with the thinking of every assistant message in
// the shape clients built on the AI SDK (version 5) keep and send it: a
// thinking block becomes
//
//	{"type":"reasoning","text":"…","providerOptions":{"anthropic":{"signature":"…"}}}
//
// (without providerOptions when it had no signature), a redacted_thinking
// block a reasoning part with empty text whose anthropic provider options
// carry "redactedData". With reasoningLast, the reasoning parts of each
// message move after its other parts, keeping their order, as clients that
// assemble parts by kind send them. Every other message, and every other
// block, keeps its bytes; parts already in the AI SDK's shape stay as they
// are, so converting again after a Send converts only the new answer.
func AISDKHistory(msgs []json.RawMessage, reasoningLast bool) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(msgs))
	for i, raw := range msgs {
		var m struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "assistant" {
			out[i] = raw
			continue
		}
		var parts, reasoning, other []json.RawMessage
		for _, b := range m.Content {
			part, isReasoning, err := reasoningPart(b)
			if err != nil {
				return nil, fmt.Errorf("llmtest: message %d: %w", i, err)
			}
			parts = append(parts, part)
			if isReasoning {
				reasoning = append(reasoning, part)
			} else {
				other = append(other, part)
			}
		}
		if reasoningLast {
			parts = append(other, reasoning...)
		}
		if slices.EqualFunc(parts, m.Content, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			out[i] = raw
			continue
		}
		msg := []byte(`{"role":"assistant","content":[`)
		for k, p := range parts {
			if k > 0 {
				msg = append(msg, ',')
			}
			msg = append(msg, p...)
		}
		out[i] = append(msg, "]}"...)
	}
	return out, nil
}

// reasoningPart returns the AI SDK reasoning part that stands for the
// content block b, and true, when b is a thinking block or already a
// reasoning part; any other block it returns as it is, and false.
func reasoningPart(b json.RawMessage) (json.RawMessage, bool, error) {
	var f struct {
		Type      string  `json:"type"`
		Thinking  string  `json:"thinking"`
		Signature *string `json:"signature"`
		Data      string  `json:"data"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, false, err
	}
	var part []byte
	switch f.Type {
	case "thinking":
		part = claudecode.AppendString([]byte(`{"type":"reasoning","text":`), f.Thinking)
		if f.Signature != nil {
			part = claudecode.AppendString(append(part, `,"providerOptions":{"anthropic":{"signature":`...), *f.Signature)
			part = append(part, "}}"...)
		}
	case "redacted_thinking":
		part = claudecode.AppendString([]byte(`{"type":"reasoning","text":"","providerOptions":{"anthropic":{"redactedData":`), f.Data)
		part = append(part, "}}"...)
	case "reasoning":
		return b, true, nil
	default:
		return b, false, nil
	}
	return append(part, '}'), true, nil
}
