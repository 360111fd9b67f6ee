package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// gemPost sends body to u for model, streamed or not, and returns the
// status and the body.
func gemPost(t *testing.T, u *GeminiUpstream, model string, stream bool, body string) (int, string) {
	t.Helper()
	url := u.URL() + "/v1beta/models/" + model + ":generateContent"
	if stream {
		url = u.URL() + "/v1beta/models/" + model + ":streamGenerateContent?alt=sse"
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// wantGoogleRefusal fails the test unless the answer is Google's 400
// INVALID_ARGUMENT envelope with exactly msg.
func wantGoogleRefusal(t *testing.T, status int, body, msg string) {
	t.Helper()
	if want := string(GeminiError(400, "INVALID_ARGUMENT", msg)); status != http.StatusBadRequest || body != want {
		t.Fatalf("got %d %s\nwant 400 %s", status, body, want)
	}
}

// withGeneration returns a one-turn request with the generation config g.
func withGeneration(g string) string {
	return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":` + g + `}`
}

// TestGeminiThinkingByModel: thinkingLevel to a model that thinks by
// budget (2.5, the -latest alias serving it, Gemma) and any thinkingConfig
// to Gemini 2.0 are refused in Google's words; Gemini 3 takes either.
func TestGeminiThinkingByModel(t *testing.T) {
	u := NewGeminiUpstream("gem")
	defer u.Close()
	level := withGeneration(`{"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"high"}}`)
	budget := withGeneration(`{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":2048}}`)
	for _, tt := range []struct {
		model, body, refusal string
	}{
		{"gemini-2.5-flash", level, msgThinkingLevel},
		{"gemini-flash-latest", level, "Thinking level is not supported for this model."},
		{"gemma-4-31b-it", level, msgThinkingLevel},
		{"gemini-2.0-flash", budget, "thinking_config is not supported."},
		{"gemini-2.0-flash", level, msgThinkingConfig},
		{"gemini-2.5-flash", budget, ""},
		{"gemini-flash-latest", budget, ""},
		{"gemini-2.0-flash", withGeneration(`{"maxOutputTokens":100}`), ""},
		{"gemini-3-pro-preview", level, ""},
		{"gemini-3-pro-preview", budget, ""},
	} {
		status, body := gemPost(t, u, tt.model, false, tt.body)
		if tt.refusal != "" {
			wantGoogleRefusal(t, status, body, tt.refusal)
		} else if status != http.StatusOK {
			t.Errorf("%s refused %s: %s", tt.model, tt.body, body)
		}
	}
}

// TestGeminiOutputBound: maxOutputTokens at or over the bound, or under 1,
// is refused in Vertex AI's words; the bound is exclusive.
func TestGeminiOutputBound(t *testing.T) {
	u := NewGeminiUpstream("gem")
	defer u.Close()
	for n, ok := range map[int]bool{65536: true, 65537: false, 1: true, 0: false, 128000: false} {
		status, body := gemPost(t, u, "gemini-3-pro-preview", false, withGeneration(fmt.Sprintf(`{"maxOutputTokens":%d}`, n)))
		if ok {
			if status != http.StatusOK {
				t.Errorf("%d refused: %s", n, body)
			}
			continue
		}
		wantGoogleRefusal(t, status, body, fmt.Sprintf("Unable to submit request because it has a maxOutputTokens value of %d "+
			"but the supported range is from 1 (inclusive) to 65537 (exclusive). Update the value and try again.", n))
	}
	u.OutputBound(65536)
	status, body := gemPost(t, u, "gemini-2.5-flash-lite", false, withGeneration(`{"maxOutputTokens":65536}`))
	wantGoogleRefusal(t, status, body, "Unable to submit request because it has a maxOutputTokens value of 65536 "+
		"but the supported range is from 1 (inclusive) to 65536 (exclusive). Update the value and try again.")
	if status, body := gemPost(t, u, "gemini-2.5-flash-lite", false, withGeneration(`{"maxOutputTokens":65535}`)); status != http.StatusOK {
		t.Errorf("65535 refused: %s", body)
	}
}

// gemToolTurn is a request whose last user content answers a Bash call with
// the function response parts given (a JSON array, or "" for none).
func gemToolTurn(parts string) string {
	resp := `{"name":"Bash","id":"c1","response":{"output":"see the file"}`
	if parts != "" {
		resp += `,"parts":` + parts
	}
	resp += "}"
	return `{"contents":[{"role":"user","parts":[{"text":"read it"}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"Bash","id":"c1","args":{}},"thoughtSignature":"` + GeminiDummySignature + `"}]},` +
		`{"role":"user","parts":[{"functionResponse":` + resp + `}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"Bash","parametersJsonSchema":{"type":"object"}}]}]}`
}

// TestGeminiFunctionResponseParts: Gemini 3 takes images and documents
// inside a function response, and its answer says what it saw; a model
// before Gemini 3 refuses them, as do parts of an undocumented type or
// with bytes that are not base64.
func TestGeminiFunctionResponseParts(t *testing.T) {
	u := NewGeminiUpstream("gem")
	defer u.Close()
	pdf := `[{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0xLjQK"}},{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}]`
	status, body := gemPost(t, u, "gemini-3-pro-preview", false, gemToolTurn(pdf))
	if status != http.StatusOK || !strings.Contains(body, "gem answer 1. Seen: application/pdf, image/png.") {
		t.Fatalf("%d %s", status, body)
	}
	status, body = gemPost(t, u, "gemini-2.5-flash", false, gemToolTurn(pdf))
	wantGoogleRefusal(t, status, body, "Multimodal function responses are not supported for this model.")
	status, body = gemPost(t, u, "gemini-3-pro-preview", false, gemToolTurn(`[{"inlineData":{"mimeType":"image/gif","data":"R0lGODlh"}}]`))
	if status != http.StatusBadRequest || !strings.Contains(body, `Unsupported MIME type \"image/gif\"`) {
		t.Errorf("a GIF in a function response: %d %s", status, body)
	}
	status, body = gemPost(t, u, "gemini-3-pro-preview", false, gemToolTurn(`[{"inlineData":{"mimeType":"application/pdf","data":"not base64!"}}]`))
	wantGoogleRefusal(t, status, body, `Invalid value at 'contents[2].parts[0].function_response.parts[0].inline_data.data' (TYPE_BYTES), Base64 decoding failed for "not base64!"`)
	status, body = gemPost(t, u, "gemini-3-pro-preview", false, gemToolTurn(`[{}]`))
	wantGoogleRefusal(t, status, body, "* GenerateContentRequest.contents[2].parts[0].function_response.parts[0].data: required oneof field 'data' must have one initialized field")
	if status, body = gemPost(t, u, "gemini-2.5-flash", false, gemToolTurn("")); status != http.StatusOK {
		t.Errorf("a function response without parts: %d %s", status, body)
	}
}

// TestGeminiAnswersEmpty: an answer the model failed to produce is a 200
// whose candidate has no content, only the finish reason; a stream's
// first and only event; once, or every time.
func TestGeminiAnswersEmpty(t *testing.T) {
	u := NewGeminiUpstream("gem")
	defer u.Close()
	u.AnswerEmpty("MALFORMED_FUNCTION_CALL", 1)
	hi := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	status, body := gemPost(t, u, "gemini-3-pro-preview", true, hi)
	events := strings.Split(strings.TrimSpace(body), "\r\n\r\n")
	var r struct {
		Candidates []struct {
			Content       *json.RawMessage `json:"content"`
			FinishReason  string           `json:"finishReason"`
			FinishMessage string           `json:"finishMessage"`
		} `json:"candidates"`
	}
	if status != http.StatusOK || len(events) != 1 || json.Unmarshal([]byte(strings.TrimPrefix(events[0], "data: ")), &r) != nil ||
		len(r.Candidates) != 1 || r.Candidates[0].Content != nil || r.Candidates[0].FinishReason != "MALFORMED_FUNCTION_CALL" ||
		!strings.HasPrefix(r.Candidates[0].FinishMessage, "Malformed function call: ") {
		t.Fatalf("%d %q", status, body)
	}
	if status, body = gemPost(t, u, "gemini-3-pro-preview", false, hi); status != http.StatusOK || !strings.Contains(body, "gem answer 1.") {
		t.Fatalf("after the one empty answer: %d %s", status, body)
	}
	u.AnswerEmpty("TOO_MANY_TOOL_CALLS", -1)
	for range 3 {
		if status, body = gemPost(t, u, "gemini-3-pro-preview", false, hi); status != http.StatusOK ||
			!bytes.Contains([]byte(body), []byte(`"candidates":[{"finishReason":"TOO_MANY_TOOL_CALLS","index":0}]`)) {
			t.Fatalf("every time: %d %s", status, body)
		}
	}
}

// TestGeminiReadsWhenAsked: "[read <path>]" in the last user text makes
// the mock call the Read tool on each path, the first call signed.
func TestGeminiReadsWhenAsked(t *testing.T) {
	u := NewGeminiUpstream("gem")
	defer u.Close()
	body := `{"contents":[{"role":"user","parts":[{"text":"look at [read /p/a.pdf] and [read /p/b.png]"}]}],` +
		`"tools":[{"functionDeclarations":[{"name":"Bash","parametersJsonSchema":{"type":"object"}},{"name":"Read","parametersJsonSchema":{"type":"object"}}]}]}`
	status, out := gemPost(t, u, "gemini-3-pro-preview", false, body)
	if status != http.StatusOK || !strings.Contains(out, `{"args":{"file_path":"/p/a.pdf"},"id":"gcall-gem-1-0","name":"Read"}`) ||
		!strings.Contains(out, `"args":{"file_path":"/p/b.png"}`) || strings.Count(out, "thoughtSignature") != 1 {
		t.Fatalf("%d %s", status, out)
	}
}
