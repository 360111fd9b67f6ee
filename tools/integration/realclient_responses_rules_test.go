package integration

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// outputParts returns the parts of every function_call_output given as an
// array in the requests u got, with the index of the request.
func outputParts(t *testing.T, u *llmtest.ResponsesUpstream) (parts []map[string]string, at []int) {
	t.Helper()
	for i, r := range u.Requests() {
		_, items := responsesInput(t, r.Body)
		for _, it := range items {
			var ps []map[string]string
			if it.Type == "function_call_output" && json.Unmarshal(it.Output, &ps) == nil {
				parts = append(parts, ps...)
				for range ps {
					at = append(at, i)
				}
			}
		}
	}
	return parts, at
}

// TestRealClaudeCodeResponsesReadsAPDFAndAnImage: the real client on the
// Responses API through transport responses and the strict mock, a tool
// loop in which the model calls Read on a small PDF, then on a PNG: Claude
// Code reads each and sends it back in its tool result, and the mock gets
// it in the function_call_output, the PDF as an input_file (its bytes as
// a data URL, with a filename), the image as an input_image (its bytes as
// a data URL), beside the text Claude Code puts with them; no request
// refused.
func TestRealClaudeCodeResponsesReadsAPDFAndAnImage(t *testing.T) {
	claude := realClient(t)
	oa := startResponses(t, "openai", "")
	g := newGateway(t, nil, "openai", withResponses("openai", oa, ""))
	home := claudeHome(t)
	pdf := onePagePDF("hello")
	png, _ := base64.StdEncoding.DecodeString(pngBase64)
	for _, f := range []struct {
		name string
		data []byte
	}{{"hello.pdf", pdf}, {"pixel.png", png}} {
		if err := os.WriteFile(filepath.Join(home, "project", f.name), f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out := claudeRun(t, claude, home, g.url(), "[read "+filepath.Join(home, "project", "hello.pdf")+"] what does it say?", "--allowedTools", "Read")
	t.Logf("the PDF run printed: %s", strings.TrimSpace(out))
	out = claudeRun(t, claude, home, g.url(), "--continue", "[read "+filepath.Join(home, "project", "pixel.png")+"] and this?", "--allowedTools", "Read")
	t.Logf("the image run printed: %s", strings.TrimSpace(out))
	if !strings.Contains(out, "openai answer") {
		t.Errorf("Claude Code did not show the answer: %q", out)
	}
	assertAccepted(t, "the Responses upstream", oa)

	parts, at := outputParts(t, oa)
	var file, image map[string]string
	for i, p := range parts {
		short := map[string]string{}
		for k, v := range p {
			if len(v) > 60 {
				v = v[:60] + fmt.Sprintf("…(%d bytes)", len(v))
			}
			short[k] = v
		}
		t.Logf("request %d, output part: %v", at[i], short)
		switch p["type"] {
		case "input_file":
			file = p
		case "input_image":
			image = p
		}
	}
	if want := "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(pdf); file == nil || file["file_data"] != want || file["filename"] == "" {
		t.Errorf("the PDF did not reach the Responses API as an input_file of its bytes: %v", file)
	}
	if image == nil || image["image_url"] != "data:image/png;base64,"+pngBase64 {
		t.Errorf("the image did not reach the Responses API as an input_image: %v", image)
	}
	t.Logf("Responses API: %d requests, all accepted; %d output parts", len(oa.Requests()), len(parts))
}

// maxTokensRecorder is a reverse proxy in front of the gateway that
// records the max_tokens of every Messages request the client sends.
type maxTokensRecorder struct {
	mu   sync.Mutex
	seen []int
}

func (m *maxTokensRecorder) start(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			MaxTokens int `json:"max_tokens"`
		}
		if strings.HasPrefix(r.URL.Path, "/v1/messages") && !strings.HasSuffix(r.URL.Path, "/count_tokens") && json.Unmarshal(body, &req) == nil {
			m.mu.Lock()
			m.seen = append(m.seen, req.MaxTokens)
			m.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRealClaudeCodeResponsesOutputCapForcedLow: the real client with
// its output cap forced to 1 (CLAUDE_CODE_MAX_OUTPUT_TOKENS) on the
// Responses API, whose least max_output_tokens is 16: whatever Claude Code
// asks for, the mock gets no fewer than 16 and refuses nothing, and the
// client shows the answer.
func TestRealClaudeCodeResponsesOutputCapForcedLow(t *testing.T) {
	claude := realClient(t)
	oa := startResponses(t, "openai", "")
	g := newGateway(t, nil, "openai", withResponses("openai", oa, ""))
	home := claudeHome(t)
	var rec maxTokensRecorder
	base := rec.start(t, g.url())

	out, err := claudeRunEnv(t, []string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS=1"}, claude, home, base, "hello")
	t.Logf("the run printed (%v): %s", err, strings.TrimSpace(out))
	rec.mu.Lock()
	seen := append([]int(nil), rec.seen...)
	rec.mu.Unlock()
	var sent []string
	for _, r := range oa.Requests() {
		sent = append(sent, string(topLevel(t, r.Body)["max_output_tokens"]))
	}
	t.Logf("Claude Code asked for max_tokens %v; the Responses API got max_output_tokens %v, answered %v", seen, sent, responsesStatuses(oa))
	if err != nil || !strings.Contains(out, "openai answer") {
		t.Errorf("Claude Code did not show the answer")
	}
	assertAccepted(t, "the Responses upstream", oa)
	for i, s := range sent {
		var n int
		if json.Unmarshal([]byte(s), &n) != nil || n < llmtest.MinOutputTokens {
			t.Errorf("request %d went with max_output_tokens %q", i, s)
		}
	}
	if len(sent) == 0 {
		t.Error("the Responses API got no request")
	}
}

// TestRealClaudeCodeResponsesUnverifiedOrganization: the real client on
// the Responses API for an OpenAI organization that is not verified, which
// is refused every reasoning summary: a tool round trip and --continue.
// The first request is refused once, absorbed by llm_thinking, which
// learns to ask for no summary; the client sees no error, and on
// --continue every reasoning item of the main thread goes back with its
// encrypted content.
func TestRealClaudeCodeResponsesUnverifiedOrganization(t *testing.T) {
	claude := realClient(t)
	oa := startResponses(t, "openai", "")
	oa.UnverifyOrganization("org-openai")
	g := newGateway(t, nil, "openai", withResponses("openai", oa, ""))
	home := claudeHome(t)

	out := claudeRun(t, claude, home, g.url(), "[tool] list the files here", "--allowedTools", "Bash")
	t.Logf("run 1 printed: %s", strings.TrimSpace(out))
	out = claudeRun(t, claude, home, g.url(), "--continue", "go on")
	t.Logf("run 2 printed: %s", strings.TrimSpace(out))
	if !strings.Contains(out, "openai answer") {
		t.Errorf("Claude Code did not show the answer: %q", out)
	}
	statuses := responsesStatuses(oa)
	refused := 0
	for _, s := range statuses {
		if s != http.StatusOK {
			refused++
		}
	}
	if refused != 1 || statuses[0] != http.StatusBadRequest || oa.Requests()[0].ErrorMessage != llmtest.UnverifiedOrganizationMessage {
		t.Errorf("the Responses API answered %v, want one refusal, the first", statuses)
	}
	last := len(statuses) - 1
	back := oa.ReasoningBack(last)
	if len(back) < 2 || strings.Contains(string(oa.Requests()[last].Body), `"summary":"auto"`) {
		t.Errorf("on --continue %d reasoning items went back: %v\n%s", len(back), back, oa.Requests()[last].Body)
	}
	t.Logf("Responses API answered %v; %d reasoning items issued, %d back on --continue: %v", statuses, len(oa.Issued()), len(back), back)
}
