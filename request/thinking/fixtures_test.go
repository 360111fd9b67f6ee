package thinking

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// fixtureDir holds requests captured from the real Claude Code client.
const fixtureDir = "../../testdata/claude-code-2.1.328"

// fixtureBodies returns every captured request body, as the client sent it
// (compact) and as stored (indented).
func fixtureBodies(tb testing.TB) [][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtureDir, "capture-[0-9]*.json"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no fixtures in %s: %v", fixtureDir, err)
	}
	var bodies [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		bodies = append(bodies, compact.Bytes(), b)
	}
	return bodies
}

// fixture returns one captured body, compacted as on the wire.
func fixture(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		tb.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		tb.Fatal(err)
	}
	return compact.Bytes()
}

// fixtureOfSize grows the captured --continue request to at least n bytes
// with tool-loop turns shaped like Claude Code's.
func fixtureOfSize(tb testing.TB, n int) []byte {
	tb.Helper()
	body, err := claudecode.GrowHistory(fixture(tb, "capture-3-continue-replays-thinking.json"), n)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// mustParse parses body, failing the test when it cannot.
func mustParse(tb testing.TB, body []byte) *Request {
	tb.Helper()
	req, err := Parse(body)
	if err != nil {
		tb.Fatal(err)
	}
	return req
}
