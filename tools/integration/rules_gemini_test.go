package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// The Gemini API's rules that transport gemini handles (docs/transports.md,
// "Server rules it handles"), each end to end: real Caddy, llm_thinking in
// front of reverse_proxy with transport gemini, the strict Gemini mock
// refusing as the real API does.

// generationConfigs returns the generationConfig of every request u got,
// as JSON.
func generationConfigs(t *testing.T, u *llmtest.GeminiUpstream) []string {
	t.Helper()
	var out []string
	for _, r := range u.Requests() {
		var req struct {
			GenerationConfig json.RawMessage `json:"generationConfig"`
		}
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatalf("%v: %s", err, r.Body)
		}
		out = append(out, string(req.GenerationConfig))
	}
	return out
}

// TestGeminiAnswerWithoutContentRetried: Gemini answers 200 with no
// content and finishReason MALFORMED_FUNCTION_CALL. Once: the transport
// sends the same request again before the client's first byte, and the
// client gets the answer, streamed or not. Every time: the client gets a
// 500 api_error it retries by itself (never a 200 with an error event,
// never an empty end_turn), after exactly two requests.
func TestGeminiAnswerWithoutContentRetried(t *testing.T) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint("stream ", stream), func(t *testing.T) {
			g := newGateway(t, nil, "gemini", withGemini("gemini"))
			gem := g.geminis["gemini"]
			c, ok := g.session("gemini-malformed")
			c.Stream = stream
			gem.AnswerEmpty("MALFORMED_FUNCTION_CALL", 1)
			turn := ok(c.Say("[tool] list the files"))
			if turn.StopReason != "tool_use" || !strings.Contains(string(turn.Message), `"name":"Bash"`) {
				t.Fatalf("after the retry: %s", turn.Message)
			}
			reqs := gem.Requests()
			if len(reqs) != 2 || !bytes.Equal(reqs[0].Body, reqs[1].Body) || !strings.Contains(string(reqs[0].Response), "MALFORMED_FUNCTION_CALL") {
				t.Fatalf("Gemini got %d requests, want the same one twice:\n%.300s\n%.300s\n%.300s", len(reqs), reqs[0].Body, reqs[1].Body, reqs[0].Response)
			}
			if e := g.logEvents("thinking.upstream_no_answer"); len(e) != 1 || e[0]["retried"] != true {
				t.Errorf("log: %v", e)
			}

			gem.AnswerEmpty("MALFORMED_FUNCTION_CALL", -1)
			turn, err := c.ToolResult("file1")
			if err != nil {
				t.Fatal(err)
			}
			if turn.Status != http.StatusInternalServerError || turn.ErrorType != "api_error" || turn.Header.Get("X-Should-Retry") != "true" ||
				!strings.Contains(turn.ErrorMessage, "finishReason MALFORMED_FUNCTION_CALL: Malformed function call") ||
				!strings.HasPrefix(turn.Header.Get("Content-Type"), "application/json") {
				t.Fatalf("twice without content: %d %s %q %v", turn.Status, turn.ErrorType, turn.ErrorMessage, turn.Header)
			}
			if n := len(gem.Requests()); n != 4 {
				t.Errorf("Gemini got %d requests in all, want 4", n)
			}
			gem.AnswerEmpty("", 0)
			ok(c.Send()) // the client's own retry
			assertAccepted(t, "Gemini", gem)
		})
	}
}

// TestGeminiThinkingRefusalsLearnedOnce: models that refuse what the
// transport guessed from their names: the -latest alias serving Gemini
// 2.5 and Gemma refuse thinkingLevel, Gemini 2.0 any thinkingConfig. Each
// refuses once in a tool loop of Claude Code's shape, the client never
// sees it, every later request asks with a budget (or without thinking),
// the fact shows in the registry's status, and after a restart with
// persistence nothing is refused again. Declared up front (a
// backend_profile fact, or the transport's thinking option), nothing is
// refused at all.
func TestGeminiThinkingRefusalsLearnedOnce(t *testing.T) {
	for _, tc := range []struct {
		name, model, handler, extra string
		refusals                    int
		fact, want                  string
	}{
		{"alias learned", "gemini-flash-latest", "", "", 1, "no_thinking_level", `"thinkingBudget":24576`},
		{"gemma learned", "gemma-4-31b-it", "", "", 1, "no_thinking_level", `"thinkingBudget":24576`},
		{"2.0 learned", "gemini-2.0-flash", "", "", 1, "cannot_think", ""},
		{"alias declared in a profile", "gemini-flash-latest", "backend_profile gemini {\n\tfacts no_thinking_level\n}", "", 0, "", `"thinkingBudget":24576`},
		{"alias declared in the transport", "gemini-flash-latest", "", "thinking budget", 0, "", `"thinkingBudget":24576`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []func(*gateway){withGeminiServing("gemini", tc.model, tc.extra)}
			if tc.handler != "" {
				opts = append(opts, withHandler(tc.handler))
			}
			g := newGateway(t, nil, "gemini", opts...)
			gem := g.geminis["gemini"]
			c, ok := g.session("gemini-thinking-" + tc.model)
			ok(c.Say("[tool] list the files"))
			ok(c.ToolResult("a.go b.go"))
			ok(c.Say("and now?"))
			if n := refusals(gem); n != tc.refusals {
				for _, r := range gem.Requests() {
					t.Logf("%d %s", r.Status, r.ErrorMessage)
				}
				t.Fatalf("Gemini refused %d times, want %d", n, tc.refusals)
			}
			configs := generationConfigs(t, gem)
			for i, cfg := range configs[tc.refusals:] {
				if strings.Contains(cfg, "thinkingLevel") || tc.want == "" && strings.Contains(cfg, "thinkingConfig") ||
					!strings.Contains(cfg, tc.want) {
					t.Errorf("request %d after the refusal asks %s", tc.refusals+i+1, cfg)
				}
			}
			s := g.stats()
			if tc.fact != "" && (len(s.Capabilities) != 1 || strings.Join(s.Capabilities[0].Names, "+") != tc.fact) {
				t.Errorf("learned: %+v", s.Capabilities)
			}
			if tc.fact == "" && len(s.Capabilities) != 0 {
				t.Errorf("learned %+v, want nothing", s.Capabilities)
			}

			refusalsAfterRestart(t, g, c, "Gemini", gem, tc.refusals)
		})
	}
}

// readPDF is what Claude Code's Read tool gives back for a small PDF
// (a document block) and a PNG (an image block), beside its text.
const readPDF = `[{"type":"text","text":"PDF file read: ./spec.pdf"},` +
	`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"}},` +
	`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="}}]`

// toolResultWith appends a user message answering every tool_use of the
// last assistant message with content (a JSON array), as Claude Code
// sends a Read of a PDF, and sends the history.
func toolResultWith(t *testing.T, c *llmtest.Conversation, content string) *llmtest.Turn {
	t.Helper()
	var last struct {
		Content []struct{ Type, ID string } `json:"content"`
	}
	if err := json.Unmarshal(c.Messages[len(c.Messages)-1], &last); err != nil {
		t.Fatal(err)
	}
	msg := `{"role":"user","content":[`
	n := 0
	for _, b := range last.Content {
		if b.Type == "tool_use" {
			if n > 0 {
				msg += ","
			}
			n++
			msg += `{"tool_use_id":"` + b.ID + `","type":"tool_result","content":` + content + `}`
		}
	}
	c.Messages = append(c.Messages, json.RawMessage(msg+"]}"))
	return okTurns(t)(c.Send())
}

// TestGeminiReadsAPDFInAToolLoop: a Read of a PDF and an image in a tool
// loop. Gemini 3 gets both inside the function response, as its docs say
// (the mock's answer names what it saw, and the client gets that answer);
// Gemini 2.5 refuses media there, and gets them after the responses, as
// parts of the same user content.
func TestGeminiReadsAPDFInAToolLoop(t *testing.T) {
	for _, tc := range []struct {
		model, extra string
		inside       bool
	}{
		{"gemini-3-pro-preview", "", true},
		{"gemini-2.5-flash", "", false},
		{"gemini-flash-latest", "thinking budget", false},
	} {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s stream %v", tc.model, stream), func(t *testing.T) {
				g := newGateway(t, nil, "gemini", withGeminiServing("gemini", tc.model, tc.extra))
				gem := g.geminis["gemini"]
				c := g.conversation("gemini-pdf")
				c.Stream = stream
				okTurns(t)(c.Say("[tool] read spec.pdf"))
				turn := toolResultWith(t, c, readPDF)
				got, sent := lastGeminiRequest(t, gem)
				parts := sent.Contents[len(sent.Contents)-1].Parts
				var types []string
				for _, p := range parts[1:] {
					if p.InlineData != nil {
						types = append(types, p.InlineData.MimeType)
					}
				}
				fr := parts[0].FunctionResponse
				if tc.inside {
					if fr == nil || len(fr.Parts) != 2 || fr.Parts[0].InlineData.MimeType != "application/pdf" ||
						!strings.HasPrefix(fr.Parts[0].InlineData.Data, "JVBERi0x") || fr.Parts[1].InlineData.MimeType != "image/png" || len(types) != 0 {
						t.Fatalf("Gemini 3 got %s", got.Body)
					}
					if !strings.Contains(string(turn.Message), "Seen: application/pdf, image/png.") {
						t.Errorf("the answer does not say what Gemini saw: %s", turn.Message)
					}
				} else if fr == nil || len(fr.Parts) != 0 || strings.Join(types, ",") != "application/pdf,image/png" {
					t.Fatalf("%s got %s", tc.model, got.Body)
				}
				assertAccepted(t, "Gemini", gem)
			})
		}
	}
}

// postRaw posts body to the gateway's path and returns the status, the
// header and the body.
func postRaw(t *testing.T, g *gateway, path, body string) (int, http.Header, []byte) {
	t.Helper()
	h := http.Header{"X-Api-Key": {"sk-test"}, "Anthropic-Version": {"2023-06-01"}, "Content-Type": {"application/json"}}
	return g.send(t, path, h, []byte(body))
}

// messageOf returns the message of an answer, streamed or not, as Claude
// Code assembles it, failing unless it is valid UTF-8 and valid JSON.
func messageOf(t *testing.T, header http.Header, body []byte) []byte {
	t.Helper()
	if !utf8.Valid(body) {
		t.Fatalf("the answer is not valid UTF-8: %q", body)
	}
	if strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		msg, err := claudecode.AssembleStream(body)
		if err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		return msg
	}
	if !json.Valid(body) {
		t.Fatalf("not JSON: %s", body)
	}
	return body
}

// withMaxTokens returns body with Claude Code's max_tokens replaced.
func withMaxTokens(body []byte, n int) string {
	return strings.Replace(string(body), `"max_tokens":32000`, fmt.Sprintf(`"max_tokens":%d`, n), 1)
}

// TestGeminiOutputCap: Vertex AI refuses maxOutputTokens at or over an
// exclusive bound of 65537 (65536 for some models); a client's larger
// max_tokens (Claude Code's CLAUDE_CODE_MAX_OUTPUT_TOKENS) goes as 65535,
// which both take, and the transport's max_tokens caps it lower.
func TestGeminiOutputCap(t *testing.T) {
	for _, tc := range []struct {
		extra       string
		bound       int
		asked, sent int
	}{
		{"", 0, 128000, 65535},
		{"", 65536, 65536, 65535},
		{"", 0, 32000, 32000},
		{"max_tokens 8192", 0, 32000, 8192},
		{"max_tokens 8192", 0, 100, 100},
	} {
		t.Run(fmt.Sprintf("%q bound %d asked %d", tc.extra, tc.bound, tc.asked), func(t *testing.T) {
			g := newGateway(t, nil, "gemini", withGeminiServing("gemini", "gemini-3-pro-preview", tc.extra))
			gem := g.geminis["gemini"]
			if tc.bound != 0 {
				gem.OutputBound(tc.bound)
			}
			c := g.conversation("gemini-cap")
			c.Messages = append(c.Messages, json.RawMessage(`{"role":"user","content":[{"type":"text","text":"hello"}]}`))
			status, header, body := postRaw(t, g, "/v1/messages?beta=true", withMaxTokens(c.Body(), tc.asked))
			if status != http.StatusOK {
				t.Fatalf("%d %s", status, body)
			}
			messageOf(t, header, body)
			if cfg := generationConfigs(t, gem)[0]; !strings.Contains(cfg, fmt.Sprintf(`"maxOutputTokens":%d,`, tc.sent)) {
				t.Errorf("Gemini got %s, want maxOutputTokens %d", cfg, tc.sent)
			}
		})
	}
}

// TestGeminiClaudeCodeShapes: the other requests Claude Code sends, from
// its captured shapes: a max_tokens 1 request with a string content (the
// quota check, the warm-up, the key test), one without tools, one with
// tool_choice none, and count_tokens. Each gets a 200 with a valid
// Messages answer through the strict mock, streamed and not.
func TestGeminiClaudeCodeShapes(t *testing.T) {
	g := newGateway(t, nil, "gemini", withGemini("gemini"))
	gem := g.geminis["gemini"]
	side := readCapture(t, "capture-6-interactive-title-side-request.json")
	first := readCapture(t, "capture-1-first-turn.json")
	shapes := map[string]map[string]any{
		"max_tokens 1, string content": with(side, map[string]any{"max_tokens": 1, "messages": []any{map[string]any{"role": "user", "content": "quota"}}}),
		"no tools":                     with(first, map[string]any{"tools": nil, "context_management": nil}),
		"empty tools":                  side,
		"tool_choice none":             with(first, map[string]any{"tool_choice": map[string]any{"type": "none"}}),
	}
	for name, shape := range shapes {
		for _, stream := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s stream %v", name, stream), func(t *testing.T) {
				body, _ := json.Marshal(with(shape, map[string]any{"stream": stream}))
				status, header, out := postRaw(t, g, "/v1/messages?beta=true", string(body))
				if status != http.StatusOK {
					t.Fatalf("%d %s\nGemini: %s", status, out, lastError(gem))
				}
				var m struct {
					Content []struct{ Type, Text string } `json:"content"`
				}
				if err := json.Unmarshal(messageOf(t, header, out), &m); err != nil || len(m.Content) == 0 || m.Content[len(m.Content)-1].Type != "text" {
					t.Fatalf("answer %s", out)
				}
			})
		}
	}
	body, _ := json.Marshal(with(first, map[string]any{"stream": nil}))
	status, _, out := postRaw(t, g, "/v1/messages/count_tokens?beta=true", string(body))
	var count struct {
		InputTokens int `json:"input_tokens"`
	}
	if status != http.StatusOK || json.Unmarshal(out, &count) != nil || count.InputTokens < 100 {
		t.Fatalf("count_tokens: %d %s", status, out)
	}
	assertAccepted(t, "Gemini", gem)
	if cfg := generationConfigs(t, gem); !strings.Contains(strings.Join(cfg, " "), `"maxOutputTokens":1,`) {
		t.Errorf("no request asked for one token: %v", cfg)
	}
}

// lastError returns the message of the last refusal u answered.
func lastError(u mockUpstream) string {
	reqs := u.Requests()
	if len(reqs) == 0 {
		return "(nothing received)"
	}
	return reqs[len(reqs)-1].ErrorMessage
}

// readCapture reads a request Claude Code 2.1.328 sent.
func readCapture(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../../testdata/claude-code-2.1.328/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// with returns a copy of m with the members of set (nil removes one).
func with(m, set map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range set {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// TestGeminiBadBytes: an upstream's answer with bytes that are not UTF-8
// in a text, a raw NUL in a thought, and arguments nested too deep for a
// JSON reader reaches the client as valid UTF-8 and valid JSON, the same
// whole and streamed: U+FFFD, the NUL escaped, the arguments as
// raw_arguments.
func TestGeminiBadBytes(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001)
	answer := `{"candidates":[{"content":{"role":"model","parts":[{"text":"a` + "\x00" + `b","thought":true},` +
		`{"text":"bad ` + "\xff" + ` bytes"},{"functionCall":{"name":"Bash","args":` + deep + `}}]},"finishReason":"STOP","index":0}],"responseId":"r1"}`
	var contents [2][]map[string]any
	for i, stream := range []bool{true, false} {
		g := newGateway(t, nil, "gemini", withGemini("gemini"))
		gem := g.geminis["gemini"]
		if stream {
			gem.FailNext(http.StatusOK, "data: "+answer+"\r\n\r\n")
		} else {
			gem.FailNext(http.StatusOK, answer)
		}
		c := g.conversation("gemini-bad-bytes")
		c.Stream = stream
		c.Messages = append(c.Messages, json.RawMessage(`{"role":"user","content":[{"type":"text","text":"hello"}]}`))
		status, header, body := postRaw(t, g, "/v1/messages?beta=true", string(c.Body()))
		if status != http.StatusOK {
			t.Fatalf("stream %v: %d %s", stream, status, body)
		}
		var m struct{ Content []map[string]any }
		if err := json.Unmarshal(messageOf(t, header, body), &m); err != nil || len(m.Content) != 3 {
			t.Fatalf("stream %v: %v %s", stream, err, body)
		}
		if sig, _ := m.Content[0]["signature"].(string); !strings.HasPrefix(sig, "llmthinking.v1.reasoning.gemini.t") {
			t.Errorf("stream %v: the thought's signature %q", stream, sig)
		}
		for _, b := range m.Content {
			delete(b, "id")        // minted at random
			delete(b, "signature") // sealed with each gateway's own key
		}
		contents[i] = m.Content
	}
	if fmt.Sprint(contents[0]) != fmt.Sprint(contents[1]) {
		t.Errorf("streamed and not differ:\n%v\n%v", contents[0], contents[1])
	}
	c := contents[0]
	if c[0]["thinking"] != "a\x00b" || c[1]["text"] != "bad \uFFFD bytes" || c[2]["input"].(map[string]any)["raw_arguments"] != deep {
		t.Errorf("content %v", c)
	}
}

// TestTranslatedCountTokensRefusesWhatMessagesRefuses: count_tokens
// through each translating transport, alone or behind llm_thinking,
// answers a body that is not JSON, or not an object with messages, as
// /v1/messages does: 400 invalid_request_error in Anthropic's envelope.
func TestTranslatedCountTokensRefusesWhatMessagesRefuses(t *testing.T) {
	blocks := map[string]string{
		"gemini":    "transport gemini {\n\t\t\tapi_key k\n\t\t}",
		"openai":    "transport openai",
		"responses": "transport responses {\n\t\t\tapi_key k\n\t\t}",
	}
	for name, block := range blocks {
		for _, handler := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s handler %v", name, handler), func(t *testing.T) {
				opts := []func(*gateway){withBlock(name, block), func(g *gateway) { g.Upstreams[name] = "127.0.0.1:9" }}
				if !handler {
					opts = append(opts, plainProxy)
				}
				g := newGateway(t, nil, name, opts...)
				for _, body := range []string{`{"model":`, `[1,2]`, `"messages"`, `{"model":"claude-sonnet-4-5"}`} {
					for _, path := range []string{"/v1/messages/count_tokens?beta=true", "/v1/messages?beta=true"} {
						status, _, out := postRaw(t, g, path, body)
						var env struct {
							Type  string
							Error struct{ Type, Message string }
						}
						if status != http.StatusBadRequest || json.Unmarshal(out, &env) != nil || env.Type != "error" || env.Error.Type != "invalid_request_error" {
							t.Errorf("%s %s: %d %s", path, body, status, out)
						}
					}
				}
			})
		}
	}
}

// TestGeminiStreamCutNamesNoAddress: the upstream resets the connection
// in the middle of a stream; the client's error event says what failed
// and names no address of the gateway's network.
func TestGeminiStreamCutNamesNoAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go cutMidStream(conn)
		}
	}()
	g := newGateway(t, nil, "gemini", withBlock("gemini", "transport gemini {\n\t\t\tapi_key k\n\t\t}"),
		func(g *gateway) { g.Upstreams["gemini"] = ln.Addr().String() })
	c := g.conversation("gemini-cut")
	turn, err := c.Say("hello")
	if err != nil {
		t.Fatal(err)
	}
	if turn.Status != http.StatusOK || turn.ErrorType != "api_error" || !strings.Contains(turn.ErrorMessage, "reading the upstream's stream failed") {
		t.Fatalf("%d %s %q", turn.Status, turn.ErrorType, turn.ErrorMessage)
	}
	if strings.Contains(string(turn.Body), "127.0.0.1") || !strings.Contains(turn.ErrorMessage, "[address]") {
		t.Errorf("the error event names an address: %s", turn.Body)
	}
}

// cutMidStream answers one request with the head of a stream and one
// event, then resets the connection.
func cutMidStream(conn net.Conn) {
	defer conn.Close()
	buf := make([]byte, 64<<10)
	var got []byte
	for !bytes.Contains(got, []byte("\r\n\r\n")) {
		n, err := conn.Read(buf)
		if err != nil {
			return
		}
		got = append(got, buf[:n]...)
	}
	io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	event := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]},\"index\":0}],\"responseId\":\"r1\"}\r\n\r\n"
	fmt.Fprintf(conn, "%x\r\n%s\r\n", len(event), event)
	if tcp, ok := conn.(*net.TCPConn); ok {
		tcp.SetLinger(0)
	}
}
