package claudecode

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestGrowHistory(t *testing.T) {
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi \u003c"},{"role":"user","content":"last"}],"stream":true}`)
	got, err := GrowHistory(body, 20000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 20000 {
		t.Fatalf("grown to %d bytes, want at least 20000", len(got))
	}
	// Every byte but the messages array's as it was.
	if !bytes.HasPrefix(got, []byte(`{"model":"m","messages":[{"role":"user","content":"hi \u003c"},{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"`)) ||
		!bytes.HasSuffix(got, []byte(`,{"role":"user","content":"last"}],"stream":true}`)) {
		t.Fatalf("grown body does not keep the original around the new turns:\n%.200s\n…%s", got, got[len(got)-80:])
	}
	var req struct {
		Messages []struct {
			Role    string
			Content json.RawMessage
		}
	}
	if err := json.Unmarshal(got, &req); err != nil {
		t.Fatal(err)
	}
	turns := (len(req.Messages) - 2) / 2
	sigs := map[string]bool{}
	for i := range turns {
		a, u := req.Messages[1+2*i], req.Messages[2+2*i]
		var blocks []struct{ Type, Signature, ID, ToolUseID string }
		json.Unmarshal(a.Content, &blocks)
		var result []struct {
			Type      string
			ToolUseID string `json:"tool_use_id"`
		}
		json.Unmarshal(u.Content, &result)
		if a.Role != "assistant" || u.Role != "user" || len(blocks) != 2 || blocks[0].Type != "thinking" || blocks[1].Type != "tool_use" ||
			len(result) != 1 || result[0].Type != "tool_result" || result[0].ToolUseID != blocks[1].ID {
			t.Fatalf("turn %d is not a tool loop:\n%s\n%s", i, a.Content, u.Content)
		}
		sigs[blocks[0].Signature] = true
	}
	if turns == 0 || len(sigs) != turns {
		t.Errorf("%d turns, %d distinct signatures", turns, len(sigs))
	}
	for _, bad := range []string{`[]`, `{"model":"m"}`, `{"messages":[]}`, `{"messages":{}}`} {
		if _, err := GrowHistory([]byte(bad), 100); err == nil {
			t.Errorf("GrowHistory(%s) did not fail", bad)
		}
	}
}
