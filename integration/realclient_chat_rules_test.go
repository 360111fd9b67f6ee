package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeRunWith is claudeRun with more environment for the client.
func claudeRunWith(t *testing.T, claude, home, baseURL string, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, append([]string{"-p", "--model", "claude-sonnet-4-5"}, args...)...)
	cmd.Dir = filepath.Join(home, "project")
	cmd.Env = append([]string{
		"HOME=" + home,
		"PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=sk-test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// smallPNG returns an 8x8 PNG.
func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range 8 {
		img.Set(i, i, color.RGBA{200, 30, 30, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// smallPDF is a one-page PDF that says "llm thinking".
const smallPDF = "%PDF-1.4\n" +
	"1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n" +
	"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
	"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 100]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj\n" +
	"4 0 obj<</Length 44>>stream\nBT /F1 12 Tf 20 50 Td (llm thinking) Tj ET\nendstream endobj\n" +
	"5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj\n" +
	"trailer<</Root 1 0 R>>\n%%EOF\n"

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
	pngBytes := smallPNG(t)
	pngPath := filepath.Join(home, "project", "dot.png")
	pdfPath := filepath.Join(home, "project", "note.pdf")
	if err := os.WriteFile(pngPath, pngBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pdfPath, []byte(smallPDF), 0o644); err != nil {
		t.Fatal(err)
	}

	out := claudeRunWith(t, claude, home, g.url(), nil, "[read "+pngPath+"] what is in it?", "--allowedTools", "Read")
	t.Logf("run 1 (PNG) printed: %s", strings.TrimSpace(out))
	last := lastChatRequest(t, or)
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

	out = claudeRunWith(t, claude, home, g.url(), nil, "--continue", "[read "+pdfPath+"] and this?", "--allowedTools", "Read")
	t.Logf("run 2 (PDF) printed: %s", strings.TrimSpace(out))
	last = lastChatRequest(t, or)
	parts, tools = chatParts(t, last.Body)
	t.Logf("run 2: tool messages %q", tools)
	// Claude Code's Read sends a PDF as a document block inside the tool
	// result, between texts; the tool message keeps the texts, and the
	// user message after it the file.
	wantPDF := "data:application/pdf;base64," + base64.StdEncoding.EncodeToString([]byte(smallPDF))
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

	out = claudeRunWith(t, claude, home, g.url(), []string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS=1200"}, "--continue", "briefly")
	t.Logf("run 3 (cap 1200) printed: %s", strings.TrimSpace(out))
	top, _ := chatRequest(t, lastChatRequest(t, or).Body)
	t.Logf("run 3: max_tokens %s", top["max_tokens"])
	if string(top["max_tokens"]) != "1200" {
		t.Errorf("the server got max_tokens %s, want the client's cap 1200", top["max_tokens"])
	}
	assertNoRefusal(t, "OpenRouter", or.Requests())
}
