package integration

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// smallPDF is a one-page PDF that says "llm thinking".
var smallPDF = onePagePDF("llm thinking")

// chatParts returns the content parts of the user messages, and the tool
// messages, of a chat-completions request.
func chatParts(t *testing.T, body []byte) (parts []map[string]any, tools []string) {
	t.Helper()
	_, msgs := chatRequest(t, body)
	for _, m := range msgs {
		switch m.Role {
		case "tool":
			tools = append(tools, string(m.Content))
		case "user":
			var ps []map[string]any
			if json.Unmarshal(m.Content, &ps) == nil {
				parts = append(parts, ps...)
			}
		}
	}
	return parts, tools
}

// TestRealClaudeCodeReadsFilesThroughOpenAI: the real client on a
// chat-completions server (OpenRouter serving Gemini 3, strict about its
// signatures) through transport openai: the model asks Claude Code's Read
// tool for a small PNG, then for a small PDF; Claude Code runs the tool
// and sends the file back in its tool result, and the server gets it in
// the shape chat completions takes. A last run forces the client's output
// cap low (CLAUDE_CODE_MAX_OUTPUT_TOKENS): the server gets that cap. No
// error, no refusal.
func TestRealClaudeCodeReadsFilesThroughOpenAI(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, nil, "openrouter", withOpenRouterGemini("openrouter"))
	or := g.chats["openrouter"]
	home := claudeHome(t)
	pngBytes := onePixelPNG
	pngPath := filepath.Join(home, "project", "dot.png")
	pdfPath := filepath.Join(home, "project", "note.pdf")
	if err := os.WriteFile(pngPath, pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pdfPath, smallPDF, 0o644); err != nil {
		t.Fatal(err)
	}

	out := claudeRunWith(t, nil, claude, home, g.url(), "[read "+pngPath+"] what is in it?", "--allowedTools", "Read")
	t.Logf("run 1 (PNG) printed: %s", strings.TrimSpace(out))
	last := lastRequest(t, or)
	parts, tools := chatParts(t, last.Body)
	t.Logf("run 1: tool messages %q; user parts %d", tools, len(parts))
	wantPNG := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	found := false
	for _, p := range parts {
		if u, _ := p["image_url"].(map[string]any); u != nil && u["url"] == wantPNG {
			found = true
		}
	}
	if !found {
		t.Errorf("the PNG did not reach the server as an image_url part:\n%s", last.Body)
	}

	out = claudeRunWith(t, nil, claude, home, g.url(), "--continue", "[read "+pdfPath+"] and this?", "--allowedTools", "Read")
	t.Logf("run 2 (PDF) printed: %s", strings.TrimSpace(out))
	last = lastRequest(t, or)
	parts, tools = chatParts(t, last.Body)
	t.Logf("run 2: tool messages %q", tools)
	// Claude Code's Read sends a PDF as a document block inside the tool
	// result, between texts; the tool message keeps the texts, and the
	// user message after it the file.
	wantPDF := "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(smallPDF)
	found = false
	for _, p := range parts {
		if f, _ := p["file"].(map[string]any); p["type"] == "file" && f != nil && f["file_data"] == wantPDF {
			found = true
			t.Logf("run 2: the PDF reached the server as a file part named %v", f["filename"])
		}
	}
	if !found || !strings.Contains(strings.Join(tools, " "), "PDF file read") {
		t.Errorf("the PDF did not reach the server as a file part after its tool message:\n%s", last.Body)
	}

	out = claudeRunWith(t, []string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS=1200"}, claude, home, g.url(), "--continue", "briefly")
	t.Logf("run 3 (cap 1200) printed: %s", strings.TrimSpace(out))
	top, _ := chatRequest(t, lastRequest(t, or).Body)
	t.Logf("run 3: max_tokens %s", top["max_tokens"])
	if string(top["max_tokens"]) != "1200" {
		t.Errorf("the server got max_tokens %s, want the client's cap 1200", top["max_tokens"])
	}
	assertAccepted(t, "OpenRouter", or)
}

// TestRealClaudeCodeOpenRouterToolLoopAndBack runs the real client through
// transport openai to OpenRouter serving Gemini 3 (strict: every call must
// come back with its encrypted reasoning part), between two runs on the
// strict Anthropic mock, which binds its signatures to their prefix: a
// first turn on Anthropic, a Bash tool round trip and --continue on
// OpenRouter, then --continue back on Anthropic, which gets its own
// blocks back byte for byte. No error, no refusal, nothing of Anthropic's
// at OpenRouter.
func TestRealClaudeCodeOpenRouterToolLoopAndBack(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", withOpenRouterGemini("openrouter"))
	or := g.chats["openrouter"]
	home := claudeHome(t)

	own := firstOnAnthropic(t, g, claude, home)
	g.use("openrouter")
	continueOn(t, g, claude, home, "openrouter answer", toolLoop)
	calls := 0
	for _, r := range or.Requests() {
		calls += strings.Count(string(r.Body), `"role":"tool"`)
	}
	if calls == 0 {
		t.Fatal("no tool result reached OpenRouter: the tool loop did not run")
	}
	continueOn(t, g, claude, home, "openrouter answer", goOn)
	assertAccepted(t, "OpenRouter", or)
	carriesNone(t, "OpenRouter", or.Requests(), own)
	backOnAnthropic(t, g, claude, home, own)
}
