package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
)

// thinkingBlocks returns the thinking and redacted_thinking blocks of the
// assistant messages of a Messages request body, in order, each as the
// bytes the body holds. It reads the body with encoding/json, apart from
// the module it checks.
func thinkingBlocks(body []byte) ([]json.RawMessage, error) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var blocks []json.RawMessage
	for i, m := range req.Messages {
		if m.Role != "assistant" || !bytes.HasPrefix(m.Content, []byte("[")) {
			continue
		}
		var parts []json.RawMessage
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return nil, fmt.Errorf("content of message %d: %w", i, err)
		}
		for j, p := range parts {
			var part struct {
				Type string `json:"type"`
			}
			if err := json.Unmarshal(p, &part); err != nil {
				return nil, fmt.Errorf("content %d of message %d: %w", j, i, err)
			}
			if part.Type == "thinking" || part.Type == "redacted_thinking" {
				blocks = append(blocks, p)
			}
		}
	}
	return blocks, nil
}

// blockKeys returns the registry keys of the body's thinking blocks, in
// order, as llm_thinking computes them.
func blockKeys(body []byte) ([]block.Key, error) {
	req, err := thinking.Parse(body)
	if err != nil {
		return nil, err
	}
	defer req.Release()
	keys := make([]block.Key, 0, len(req.Blocks()))
	for _, b := range req.Blocks() {
		keys = append(keys, b.Key)
	}
	return keys, nil
}
