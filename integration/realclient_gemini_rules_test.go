package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeRunWith is claudeRun with more environment (CLAUDE_CODE_MAX_OUTPUT_TOKENS, say).
func claudeRunWith(t *testing.T, env []string, claude, home, baseURL string, args ...string) string {
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

// smallPDF returns a one-page PDF with its cross-reference table right.
func smallPDF() []byte {
	content := "BT /F1 18 Tf 20 40 Td (spec v1) Tj ET"
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// onePixelPNG is a 1x1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

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
	png, _ := base64.StdEncoding.DecodeString(onePixelPNG)
	for name, b := range map[string][]byte{"spec.pdf": smallPDF(), "dot.png": png} {
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
		var req struct {
			Contents []struct {
				Parts []struct {
					FunctionResponse *struct {
						Name  string `json:"name"`
						Parts []struct {
							InlineData struct{ MimeType, Data string } `json:"inlineData"`
						} `json:"parts"`
					} `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
		}
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
	assertAllAccepted(t, gem)

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
	assertAllAccepted(t, gem)
	t.Logf("gemini: %d requests, all accepted; function response parts %q; maxOutputTokens with the cap forced low: %v", len(gem.Requests()), parts, caps)
}
