package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// realClient returns the Claude Code executable named by LLM_THINKING_CLAUDE
// (scripts/realclient installs one and sets it), or skips the test: the
// real client is not part of the suite CI runs.
func realClient(t *testing.T) string {
	t.Helper()
	claude := os.Getenv("LLM_THINKING_CLAUDE")
	if claude == "" {
		t.Skip("LLM_THINKING_CLAUDE is not set: run scripts/realclient for the real Claude Code client")
	}
	return claude
}

// claudeRun runs the real client once, non-interactively, against the
// gateway, in a home and project directory of its own, and returns what it
// printed.
func claudeRun(t *testing.T, claude, home, baseURL string, args ...string) string {
	t.Helper()
	return claudeRunWith(t, nil, claude, home, baseURL, args...)
}

// claudeRunWith is claudeRun with more environment for the client
// (CLAUDE_CODE_MAX_OUTPUT_TOKENS, say).
func claudeRunWith(t *testing.T, env []string, claude, home, baseURL string, args ...string) string {
	t.Helper()
	out, err := claudeRunEnv(t, env, claude, home, baseURL, args...)
	if err != nil {
		t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// claudeRunEnv runs the real client once with more environment and
// returns what it printed, and how it exited.
func claudeRunEnv(t *testing.T, env []string, claude, home, baseURL string, args ...string) (string, error) {
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
	return string(out), err
}

// onePagePDF returns a valid one-page PDF that says text, its
// cross-reference table at the offsets of its objects.
func onePagePDF(text string) []byte {
	content := "BT /F1 18 Tf 20 40 Td (" + text + ") Tj ET"
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
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// claudeHome returns a home for the real client, with the project
// directory it runs in.
func claudeHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "project"), 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

// firstOnAnthropic runs the real client's first turn on the gateway's
// anthropic backend, and returns the signatures of the blocks anthropic
// produced for it.
func firstOnAnthropic(t *testing.T, g *gateway, claude, home string) []string {
	t.Helper()
	out := claudeRun(t, claude, home, g.url(), "hello")
	t.Logf("run 1 on anthropic printed: %s", strings.TrimSpace(out))
	own := mainThreadSignatures(g.upstreams["anthropic"])
	if len(own) == 0 {
		t.Fatal("anthropic produced no thinking block")
	}
	return own
}

// toolLoop and goOn are the arguments of the real client's runs with
// --continue: round a Bash tool loop, and on.
var (
	toolLoop = []string{"[tool] list the files here", "--allowedTools", "Bash"}
	goOn     = []string{"go on"}
)

// continueOn runs the real client with --continue and args on the
// gateway's backend in use, which Claude Code must show the answer of,
// saying answer.
func continueOn(t *testing.T, g *gateway, claude, home, answer string, args []string) {
	t.Helper()
	out := claudeRun(t, claude, home, g.url(), append([]string{"--continue"}, args...)...)
	t.Logf("%q on %s printed: %s", args[0], g.Active, strings.TrimSpace(out))
	if !strings.Contains(out, answer) {
		t.Errorf("Claude Code did not show %s's answer: %q", g.Active, out)
	}
}

// carriesNone fails t if any of the requests to backend carries one of
// the signatures sigs.
func carriesNone(t *testing.T, backend string, reqs []llmtest.Received, sigs []string) {
	t.Helper()
	for _, sig := range sigs {
		for i, r := range reqs {
			if strings.Contains(string(r.Body), sig) {
				t.Errorf("request %d to %s carried Anthropic's signature %q", i, backend, sig)
			}
		}
	}
}

// backOnAnthropic switches the gateway back to anthropic, runs the real
// client's last turn there, and checks that the main thread sent every
// block anthropic produced for it, own, and that anthropic refused
// nothing; it returns what it sent.
func backOnAnthropic(t *testing.T, g *gateway, claude, home string, own []string) []string {
	t.Helper()
	g.use("anthropic")
	out := claudeRun(t, claude, home, g.url(), "--continue", "and back")
	t.Logf("last run, on anthropic, printed: %s", strings.TrimSpace(out))
	got := requestSignatures(t, lastMainRequest(t, g.upstreams["anthropic"]).Body)
	if !slices.Equal(got, own) {
		t.Errorf("back on anthropic, the main thread sent %d blocks, want its own %d:\n got %q\nwant %q", len(got), len(own), got, own)
	}
	if n := refusals(g.upstreams["anthropic"]); n != 0 {
		t.Errorf("anthropic refused %d times", n)
	}
	return got
}

// signatureDelta finds the signatures a stream handed out.
var signatureDelta = regexp.MustCompile(`"signature_delta","signature":"([^"]+)"`)

// mainThreadSignatures returns the signatures of the thinking blocks u
// produced for the main thread of Claude Code sessions (requests without
// an agent header), in order.
func mainThreadSignatures(u *llmtest.Upstream) []string {
	var sigs []string
	for _, r := range u.Requests() {
		if r.Header.Get("X-Claude-Code-Agent-Id") != "" {
			continue
		}
		for _, m := range signatureDelta.FindAllSubmatch(r.Response, -1) {
			sigs = append(sigs, string(m[1]))
		}
	}
	return sigs
}

// requestSignatures returns the signatures of the thinking blocks of a
// request body.
func requestSignatures(t *testing.T, body []byte) []string {
	t.Helper()
	return signaturesOf(t, thinkingBlocks(t, body))
}

// lastMainRequest returns the last request of a Claude Code main thread u
// received that carries thinking.
func lastMainRequest(t *testing.T, u *llmtest.Upstream) llmtest.Received {
	t.Helper()
	reqs := u.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Header.Get("X-Claude-Code-Agent-Id") == "" && strings.Contains(string(reqs[i].Body), `"thinking":{`) {
			return reqs[i]
		}
	}
	t.Fatal("no main-thread request with thinking")
	return llmtest.Received{}
}

// TestRealClaudeCodeSubagentAcrossSwitches runs the real Claude Code
// client through the gateway: a first run whose answer calls the Agent
// tool, so that a subagent runs in the middle of the conversation, then a
// --continue on another backend, then a --continue back on the first. The
// first backend must get every block it produced for the main thread back,
// and no backend may refuse anything.
func TestRealClaudeCodeSubagentAcrossSwitches(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, anthropicAndGLM, "anthropic")
	home := claudeHome(t)
	anthropic, glm := g.upstreams["anthropic"], g.upstreams["glm"]

	out := claudeRun(t, claude, home, g.url(), "[agent] explore this project")
	t.Logf("run 1 on anthropic printed: %s", strings.TrimSpace(out))
	subagent := 0
	for _, r := range anthropic.Requests() {
		if r.Header.Get("X-Claude-Code-Agent-Id") != "" {
			subagent++
		}
	}
	if subagent == 0 {
		t.Fatal("Claude Code ran no subagent: the Agent tool call was not taken")
	}
	own := mainThreadSignatures(anthropic)

	g.use("glm")
	out = claudeRun(t, claude, home, g.url(), "--continue", "now on another backend")
	t.Logf("run 2 on glm printed: %s", strings.TrimSpace(out))
	for _, sig := range requestSignatures(t, lastMainRequest(t, glm).Body) {
		if !strings.HasPrefix(sig, "glm.") {
			t.Errorf("glm received a block it did not produce: %q", sig)
		}
	}

	got := backOnAnthropic(t, g, claude, home, own)
	for name, u := range g.upstreams {
		for _, r := range u.Requests() {
			if r.Status != 200 {
				t.Errorf("%s answered %d: %s", name, r.Status, r.ErrorMessage)
			}
		}
	}
	t.Logf("main thread: %d anthropic blocks back after a subagent and anthropic -> glm -> anthropic; subagent requests %d; stats %+v",
		len(got), subagent, g.stats().Stats)
}

// TestRealClaudeCodeThroughTransportAnthropic runs the real client through
// transport anthropic to a backend that serves only its own model name, as
// Ollama does: every request must reach it under that name and succeed,
// and on --continue Claude Code must replay every thinking block the
// backend produced, which it does only when the answers named the model it
// asked for.
func TestRealClaudeCodeThroughTransportAnthropic(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, map[string]llmtest.Flavor{"local": llmtest.Strict}, "local",
		withBlock("local", "transport anthropic {\n\t\t\tmodel * qwen3-coder\n\t\t}"))
	local := g.upstreams["local"]
	local.ServeModel("qwen3-coder")
	home := claudeHome(t)

	out := claudeRun(t, claude, home, g.url(), "hello")
	t.Logf("run 1 printed: %s", strings.TrimSpace(out))
	own := mainThreadSignatures(local)
	if len(own) == 0 {
		t.Fatal("the backend produced no thinking block")
	}
	out = claudeRun(t, claude, home, g.url(), "--continue", "go on")
	t.Logf("run 2 printed: %s", strings.TrimSpace(out))
	got := requestSignatures(t, lastMainRequest(t, local).Body)
	if !slices.Equal(got, own) {
		t.Errorf("on --continue Claude Code replayed %d blocks, want the backend's %d:\n got %q\nwant %q", len(got), len(own), got, own)
	}
	for _, r := range local.Requests() {
		if r.Status != 200 {
			t.Errorf("the backend answered %d: %s", r.Status, r.ErrorMessage)
		}
		if model := string(topLevel(t, r.Body)["model"]); model != `"qwen3-coder"` {
			t.Errorf("the backend got model %s", model)
		}
	}
	t.Logf("%d requests, all under qwen3-coder; %d of %d blocks replayed", len(local.Requests()), len(got), len(own))
}

// TestRealClaudeCodeKimiAfterAnAnthropicToolLoop runs the real client
// through a tool loop on a strict Anthropic backend, which binds its
// signatures to their conversation, then --continue with a tool loop on a
// Kimi-style backend, which refuses a tool call message without thinking,
// and --continue back on Anthropic. The client sees no error; Kimi gets
// none of Anthropic's blocks, its refusal is absorbed once and learned;
// Anthropic gets every block it produced for the main thread back.
func TestRealClaudeCodeKimiAfterAnAnthropicToolLoop(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict, "kimi": llmtest.Lenient}, "anthropic")
	anthropic, kimi := g.upstreams["anthropic"], g.upstreams["kimi"]
	kimi.WantThinkingBack(llmtest.KimiThinkingBack)
	home := claudeHome(t)

	out := claudeRun(t, claude, home, g.url(), "[tool] list the files here", "--allowedTools", "Bash")
	t.Logf("run 1 on anthropic printed: %s", strings.TrimSpace(out))
	if n := len(anthropic.Requests()); n < 2 {
		t.Fatalf("anthropic got %d requests: the tool loop did not run", n)
	}
	own := mainThreadSignatures(anthropic)

	g.use("kimi")
	out = claudeRun(t, claude, home, g.url(), "--continue", "[tool] now on kimi", "--allowedTools", "Bash")
	t.Logf("run 2 on kimi printed: %s", strings.TrimSpace(out))
	fillers := 0
	for _, r := range kimi.Requests() {
		if r.Status != 200 {
			continue
		}
		for _, sig := range requestSignatures(t, r.Body) {
			switch {
			case sig == "":
				fillers++
			case !strings.HasPrefix(sig, "glm."):
				t.Errorf("kimi received a block it did not produce: %q", sig)
			}
		}
	}
	if fillers == 0 || refusals(kimi) > 1 {
		t.Errorf("kimi got %d fillers and refused %d times", fillers, refusals(kimi))
	}

	got := backOnAnthropic(t, g, claude, home, own)
	learned := g.stats().Capabilities
	t.Logf("anthropic: %d requests, %d of its blocks back; kimi: %d requests, %d refused, %d fillers; learned %+v",
		len(anthropic.Requests()), len(got), len(kimi.Requests()), refusals(kimi), fillers, learned)
}

// TestRealClaudeCodeGeminiToolLoop runs the real client through transport
// gemini to the strict Gemini mock, between two runs on the strict
// Anthropic mock (which binds its signatures to their prefix, and gets its
// own back byte for byte at the end): a tool round trip (Claude Code runs
// the Bash call Gemini made and sends its result), then --continue. Gemini
// checks every signature of the current turn; the client sees no error,
// and on --continue every call Gemini made goes back with the signature it
// came with, carried by Claude Code's own history.
func TestRealClaudeCodeGeminiToolLoop(t *testing.T) {
	claude := realClient(t)
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", withGemini("gemini"))
	gem := g.geminis["gemini"]
	home := claudeHome(t)

	own := firstOnAnthropic(t, g, claude, home)
	g.use("gemini")
	continueOn(t, g, claude, home, "gemini answer", toolLoop)
	issued := gem.Signatures()
	calls := 0
	for _, on := range issued {
		if on == "call Bash" {
			calls++
		}
	}
	if calls == 0 {
		t.Fatal("Gemini made no call: the tool loop did not run")
	}
	continueOn(t, g, claude, home, "gemini answer", goOn)
	_, req := lastGeminiRequest(t, gem)
	back := 0
	for _, sig := range callSignatures(req) {
		if issued[sig] == "call Bash" {
			back++
		}
	}
	if back == 0 {
		t.Errorf("on --continue no call went back with its signature: %q", callSignatures(req))
	}
	assertAccepted(t, "Gemini", gem)
	carriesNone(t, "Gemini", gem.Requests(), own)

	got := backOnAnthropic(t, g, claude, home, own)
	t.Logf("gemini: %d requests, all accepted; %d calls made, %d back with their signatures on --continue; anthropic: %d of its blocks back",
		len(gem.Requests()), calls, back, len(got))
}

// TestRealClaudeCodeResponsesToolLoop: the real client on OpenAI's
// Responses API through transport responses and the strict mock, between
// two runs on the strict Anthropic mock, which binds its signatures to
// their prefix: a first turn on Anthropic, a tool round trip and
// --continue on the Responses API, the reasoning summary shown as
// thinking, each reasoning item back with its encrypted content and
// nothing of Anthropic's; then --continue back on Anthropic, which gets
// its own blocks back byte for byte. No error, no refusal.
func TestRealClaudeCodeResponsesToolLoop(t *testing.T) {
	claude := realClient(t)
	oa := startResponses(t, "openai", "")
	g := newGateway(t, map[string]llmtest.Flavor{"anthropic": llmtest.Strict}, "anthropic", withResponses("openai", oa, ""))
	home := claudeHome(t)

	own := firstOnAnthropic(t, g, claude, home)
	g.use("openai")
	continueOn(t, g, claude, home, "openai answer", toolLoop)
	if len(oa.Issued()) < 2 {
		t.Fatalf("the upstream answered %d reasoning items: the tool loop did not run", len(oa.Issued()))
	}
	continueOn(t, g, claude, home, "openai answer", goOn)
	assertAccepted(t, "the Responses upstream", oa)
	// The --continue request of the main thread carries the reasoning item
	// of each earlier answer of the main thread: the call's, and the one of
	// the answer after the tool's output; nothing of Anthropic's.
	reqs := oa.Requests()
	main := -1
	for i, r := range reqs {
		if strings.Contains(string(r.Body), "go on") && strings.Contains(string(r.Body), `"function_call_output"`) {
			main = i
		}
	}
	if main < 0 {
		t.Fatal("no --continue request with the tool loop in its history")
	}
	back := oa.ReasoningBack(main)
	if len(back) < 2 {
		t.Errorf("on --continue %d reasoning items went back: %v\n%s", len(back), back, reqs[main].Body)
	}
	carriesNone(t, "the Responses API", reqs, own)

	got := backOnAnthropic(t, g, claude, home, own)
	t.Logf("Responses API: %d requests, all accepted; %d reasoning items issued, %d back on --continue: %v; anthropic: %d of its blocks back",
		len(reqs), len(oa.Issued()), len(back), back, len(got))
}
