package integration

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

// TestRealClaudeCodeGeminiReadsAPDF runs the real client through transport
// gemini to the strict Gemini mock, serving Gemini 3: Gemini calls Read on
// a small PDF and a PNG of the project, Claude Code runs the tool and sends
// what it read, and Gemini gets the document and the image inside the
// function responses, as its API takes them; its answer, which names what
// it saw, is what Claude Code prints. A second run forces the output cap
// low (CLAUDE_CODE_MAX_OUTPUT_TOKENS), and Gemini gets that cap.
func TestRealClaudeCodeGeminiReadsAPDF(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, nil, "gemini", withGemini("gemini"))
	gem := g.geminis["gemini"]
	home := claudeHome(t)
	project := filepath.Join(home, "project")
	for name, b := range map[string][]byte{"spec.pdf": onePagePDF("spec v1"), "dot.png": onePixelPNG} {
		if err := os.WriteFile(filepath.Join(project, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prompt := fmt.Sprintf("[read %s] [read %s] what do they hold?", filepath.Join(project, "spec.pdf"), filepath.Join(project, "dot.png"))
	t.Cleanup(func() {
		if t.Failed() {
			for i, r := range gem.Requests() {
				b := r.Body
				if i := bytes.Index(b, []byte(`"systemInstruction"`)); i > 0 {
					b = b[:i]
				}
				if len(b) > 3000 {
					b = b[len(b)-3000:]
				}
				t.Logf("request %d: %d %s\n%s", i+1, r.Status, r.ErrorMessage, b)
			}
		}
	})
	out := claudeRunWith(t, nil, claude, home, g.url(), prompt, "--allowedTools", "Read")
	t.Logf("run 1 on gemini printed: %s", strings.TrimSpace(out))
	if !strings.Contains(out, "Seen: application/pdf, image/png.") {
		t.Errorf("Claude Code did not show what Gemini saw: %q", out)
	}
	var parts []string
	for _, r := range gem.Requests() {
		var req geminiRequest
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatal(err)
		}
		for _, c := range req.Contents {
			for _, p := range c.Parts {
				if fr := p.FunctionResponse; fr != nil {
					for _, fp := range fr.Parts {
						parts = append(parts, fmt.Sprintf("%s %s %d bytes", fr.Name, fp.InlineData.MimeType, base64.StdEncoding.DecodedLen(len(fp.InlineData.Data))))
					}
				}
			}
		}
	}
	if len(parts) < 2 || !strings.HasPrefix(parts[0], "Read application/pdf") || !strings.HasPrefix(parts[1], "Read image/png") {
		t.Errorf("the function responses Gemini got held %q", parts)
	}
	assertAccepted(t, "Gemini", gem)

	before := len(gem.Requests())
	out = claudeRunWith(t, []string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS=3000"}, claude, home, g.url(), "--continue", "in short?")
	t.Logf("run 2 on gemini (CLAUDE_CODE_MAX_OUTPUT_TOKENS=3000) printed: %s", strings.TrimSpace(out))
	var caps []string
	for _, cfg := range generationConfigs(t, gem)[before:] {
		var c struct {
			MaxOutputTokens int `json:"maxOutputTokens"`
		}
		json.Unmarshal([]byte(cfg), &c)
		caps = append(caps, fmt.Sprint(c.MaxOutputTokens))
	}
	if !strings.Contains(strings.Join(caps, " "), "3000") {
		t.Errorf("with the cap forced low, Gemini got maxOutputTokens %v", caps)
	}
	assertAccepted(t, "Gemini", gem)
	t.Logf("gemini: %d requests, all accepted; function response parts %q; maxOutputTokens with the cap forced low: %v", len(gem.Requests()), parts, caps)
}
