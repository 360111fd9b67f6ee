package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// captureFile is the Claude Code request the sessions grow from, relative
// to the tools folder, where `go -C tools run` runs the program.
const captureFile = "../testdata/claude-code-2.1.328/capture-3-continue-replays-thinking.json"

// readCapture returns the captured request, compacted.
func readCapture() ([]byte, error) {
	raw, err := os.ReadFile(captureFile)
	if err != nil {
		return nil, fmt.Errorf("read the captured session (run it from the tools folder: go -C tools run ./cmd/llm-thinking-overhead): %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, fmt.Errorf("compact %s: %w", captureFile, err)
	}
	return compact.Bytes(), nil
}

// growSession returns the capture grown to at least size bytes by
// claudecode.GrowHistory, its signatures marked with mark (see
// markSignatures).
func growSession(capture []byte, size int, mark string) ([]byte, error) {
	grown, err := claudecode.GrowHistory(capture, size)
	if err != nil {
		return nil, fmt.Errorf("grow the captured session to %d bytes: %w", size, err)
	}
	return markSignatures(grown, mark)
}

// markSignatures returns body with the signature of every thinking block
// prefixed with mark, and every other byte as it was. Grown sessions share
// their first turns; marked apart, no two loads share a block, so that
// each load's blocks can have origins of their own in the registry.
func markSignatures(body []byte, mark string) ([]byte, error) {
	blocks, err := thinkingBlocks(body)
	if err != nil {
		return nil, fmt.Errorf("read the thinking blocks to mark: %w", err)
	}
	var pairs []string // old literal, new literal, ...
	for _, b := range blocks {
		var f struct {
			Type      string `json:"type"`
			Signature string `json:"signature"`
		}
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("read a thinking block to mark: %w", err)
		}
		if f.Type != "thinking" {
			continue
		}
		old, _ := json.Marshal(f.Signature) // a string always marshals
		marked, _ := json.Marshal(mark + f.Signature)
		pairs = append(pairs, string(old), string(marked))
	}
	out := strings.NewReplacer(pairs...).Replace(string(body))
	if got, want := strings.Count(out, `"`+mark), len(pairs)/2; got != want {
		return nil, fmt.Errorf("marked %d of %d signatures with %q", got, want, mark)
	}
	return []byte(out), nil
}
