package thinking

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureDir holds requests captured from the real Claude Code client.
const fixtureDir = "../testdata/claude-code-2.1.328"

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

// fixtureOfSize grows the captured --continue request to at least n bytes by
// inserting tool-loop turns shaped like Claude Code's (signed thinking with
// omitted text, a tool_use, a tool_result) before its final user message.
func fixtureOfSize(tb testing.TB, n int) []byte {
	tb.Helper()
	var req map[string]json.RawMessage
	if err := json.Unmarshal(fixture(tb, "capture-3-continue-replays-thinking.json"), &req); err != nil {
		tb.Fatal(err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		tb.Fatal(err)
	}
	last := msgs[len(msgs)-1]
	msgs = msgs[:len(msgs)-1]
	size := len(fixture(tb, "capture-3-continue-replays-thinking.json"))
	for turn := 0; size < n; turn++ {
		sig := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte(fmt.Sprintf("sig-%06d|", turn)), 24))
		assistant := fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":%q},{"type":"tool_use","id":"toolu_%06d","name":"Bash","input":{"command":"ls -la"}}]}`, sig, turn)
		user := fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%06d","content":%q}]}`, turn, strings.Repeat("total 42 drwxr-xr-x lorem ipsum\n", 60))
		msgs = append(msgs, json.RawMessage(assistant), json.RawMessage(user))
		size += len(assistant) + len(user) + 2
	}
	msgs = append(msgs, last)
	var err error
	if req["messages"], err = json.Marshal(msgs); err != nil {
		tb.Fatal(err)
	}
	out, err := json.Marshal(req)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
