package llmtest

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
)

func TestResponsesRefusesFewerThan16OutputTokens(t *testing.T) {
	u := newResponses(t, "oa")
	for _, n := range []int{1, 15, 0, -3} {
		status, _, body := post(t, u, "k", respBody(map[string]any{"max_output_tokens": n}, userSays("quota")))
		want := map[int]string{
			1:  "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 1 instead.",
			15: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 15 instead.",
			0:  "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 0 instead.",
			-3: "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got -3 instead.",
		}[n]
		wantRefusal(t, status, body, http.StatusBadRequest, "integer_below_min_value", "max_output_tokens", want)
	}
	mustAnswer(t)(post(t, u, "k", respBody(map[string]any{"max_output_tokens": 16}, userSays("quota"))))
}

// TestResponsesUnverifiedOrganization: an organization that is not
// verified is refused any reasoning summary, in OpenAI's exact envelope,
// and served without one, its reasoning encrypted and taken back; a
// verified organization is served summaries as before.
func TestResponsesUnverifiedOrganization(t *testing.T) {
	u := newResponses(t, "oa")
	u.UnverifyOrganization("org-oa")
	u.SetOrganization("k-verified", "org-verified")
	const envelope = `{"error":{"message":"Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.","type":"invalid_request_error","param":"reasoning.summary","code":"unsupported_value"}}`
	for _, summary := range []string{"auto", "concise", "detailed"} {
		status, h, body := post(t, u, "k", respBody(map[string]any{"reasoning": map[string]any{"effort": "low", "summary": summary}}, userSays("[tool] go")))
		if status != http.StatusBadRequest || string(body) != envelope || h.Get("Content-Type") != "application/json" {
			t.Errorf("summary %s: got %d %s", summary, status, body)
		}
	}
	if r := u.Requests(); r[0].ErrorMessage != UnverifiedOrganizationMessage {
		t.Errorf("recorded the refusal as %q", r[0].ErrorMessage)
	}

	noSummary := map[string]any{"reasoning": map[string]any{"effort": "low"}}
	a, items := mustAnswer(t)(post(t, u, "k", respBody(noSummary, userSays("[tool] go"))))
	if items[0].Type != "reasoning" || items[0].Encrypted == "" || len(items[0].Summary) != 0 || items[1].Type != "function_call" {
		t.Fatalf("answer without a summary: %+v", items)
	}
	input := []any{userSays("[tool] go"), a.Output[0], a.Output[1],
		map[string]any{"type": "function_call_output", "call_id": items[1].CallID, "output": "file"}}
	mustAnswer(t)(post(t, u, "k", respBody(noSummary, input...)))
	if back := u.ReasoningBack(len(u.Requests()) - 1); !slices.Equal(back, []string{items[0].ID}) {
		t.Errorf("ReasoningBack = %v", back)
	}

	_, items = mustAnswer(t)(post(t, u, "k-verified", respBody(nil, userSays("hi"))))
	if len(items[0].Summary) != 1 {
		t.Errorf("a verified organization got no summary: %+v", items[0])
	}
}

// TestResponsesFunctionCallOutputParts: a function_call_output's output
// may be an array of input_text, input_image and input_file parts, each as
// a user message's; the mock refuses what the API refuses in them.
func TestResponsesFunctionCallOutputParts(t *testing.T) {
	call := map[string]any{"type": "function_call", "call_id": "call_x", "name": "Read", "arguments": "{}"}
	with := func(parts ...any) []byte {
		parts = append([]any{}, parts...)
		return respBody(nil, userSays("read"), call, map[string]any{"type": "function_call_output", "call_id": "call_x", "output": parts})
	}
	text := map[string]any{"type": "input_text", "text": "page 1"}
	image := map[string]any{"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}
	pdf := map[string]any{"type": "input_file", "filename": "document.pdf", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}
	byURL := map[string]any{"type": "input_file", "file_url": "https://example.com/a.pdf"}
	u := newResponses(t, "oa")
	mustAnswer(t)(post(t, u, "k", with(text, image, pdf, byURL)))
	mustAnswer(t)(post(t, u, "k", with()))

	for _, tc := range []struct {
		name              string
		part              any
		code, param, want string
	}{
		{"a Messages block", map[string]any{"type": "document", "source": map[string]any{}}, "invalid_value", "input[2].output[0]",
			"Invalid value: 'document'. Supported values are: 'input_text', 'input_image', and 'input_file'."},
		{"an output part", map[string]any{"type": "output_text", "text": "x"}, "invalid_value", "input[2].output[0]",
			"Invalid value: 'output_text'. Supported values are: 'input_text', 'input_image', and 'input_file'."},
		{"inline data without a filename", map[string]any{"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"},
			"missing_required_parameter", "input[2].output[0]", "Missing required parameter: 'input[2].output[0]'."},
		{"no file", map[string]any{"type": "input_file", "filename": "a.pdf"},
			"missing_required_parameter", "input[2].output[0]", "Missing required parameter: 'input[2].output[0]'."},
		{"bare base64", map[string]any{"type": "input_file", "filename": "a.pdf", "file_data": "JVBERi0xLjQK"}, "invalid_value", "input[2].output[0].file_data",
			"Invalid file data: 'input[2].output[0].file_data'. Expected a base64-encoded data URL with a supported MIME type (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got a value that is not a base64 data URL."},
		{"an unknown type", map[string]any{"type": "input_file", "filename": "a.bin", "file_data": "data:application/octet-stream;base64,AAAA"}, "invalid_value", "input[2].output[0].file_data",
			"Invalid file data: 'input[2].output[0].file_data'. Expected a base64-encoded data URL with a supported MIME type (e.g. 'data:application/pdf;base64,SGVsbG8sIFdvcmxkIQ=='), but got unsupported MIME type 'application/octet-stream'."},
		{"a Messages member", map[string]any{"type": "input_text", "text": "x", "cache_control": map[string]any{}}, "unknown_parameter", "input[2].output[0].cache_control",
			"Unknown parameter: 'input[2].output[0].cache_control'."},
		{"an image that is no URL", map[string]any{"type": "input_image", "image_url": "iVBORw0KGgo="}, "invalid_value", "input[2].output[0].image_url",
			"Invalid image URL: 'input[2].output[0].image_url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got an invalid URL."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, u, "k", with(tc.part))
			wantRefusal(t, status, body, http.StatusBadRequest, tc.code, tc.param, tc.want)
		})
	}
	// The same rules hold in a user message.
	status, _, body := post(t, u, "k", respBody(nil, map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "input_file", "file_data": "data:application/pdf;base64,JVBERi0xLjQK"}}}))
	wantRefusal(t, status, body, http.StatusBadRequest, "missing_required_parameter", "input[0].content[0]", "Missing required parameter: 'input[0].content[0]'.")
}

// TestResponsesScriptsARead: "[read <path>]" asks for a call of Read on
// the path when Read is offered, and for text otherwise.
func TestResponsesScriptsARead(t *testing.T) {
	u := newResponses(t, "oa")
	read := map[string]any{"type": "function", "name": "Read", "parameters": map[string]any{"type": "object"}, "strict": false}
	_, items := mustAnswer(t)(post(t, u, "k", respBody(map[string]any{"tools": []any{respTool, read}}, userSays("[read /tmp/a b.pdf] now"))))
	var args map[string]string
	if len(items) != 2 || items[1].Name != "Read" || json.Unmarshal([]byte(items[1].Arguments), &args) != nil || args["file_path"] != "/tmp/a b.pdf" {
		t.Fatalf("answer %+v", items)
	}
	_, items = mustAnswer(t)(post(t, u, "k", respBody(nil, userSays("[read /tmp/a.pdf]"))))
	if len(items) != 2 || items[1].Type != "message" {
		t.Fatalf("without Read: %+v", items)
	}
}

// TestResponsesToolChoiceNone: with tool_choice "none" the model calls no
// tool, whatever the user asks.
func TestResponsesToolChoiceNone(t *testing.T) {
	u := newResponses(t, "oa")
	_, items := mustAnswer(t)(post(t, u, "k", respBody(map[string]any{"tool_choice": "none"}, userSays("[tool] go"))))
	if len(items) != 2 || items[1].Type != "message" {
		t.Fatalf("answer %+v", items)
	}
}
