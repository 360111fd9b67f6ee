package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// newResponses starts a ResponsesUpstream that is closed when the test
// ends.
func newResponses(t *testing.T, name string) *ResponsesUpstream {
	t.Helper()
	u := NewResponsesUpstream(name)
	t.Cleanup(u.Close)
	return u
}

// respTool is the function tool the tests offer.
var respTool = map[string]any{"type": "function", "name": "Bash", "parameters": map[string]any{"type": "object"}, "strict": false}

// respBody returns a request of input, stateless, asking for summaries
// and encrypted_content, offering Bash; extra adds or (nil) removes
// parameters.
func respBody(extra map[string]any, input ...any) []byte {
	body := map[string]any{"model": "gpt-5", "store": false, "include": []string{"reasoning.encrypted_content"},
		"reasoning": map[string]any{"effort": "low", "summary": "auto"}, "tools": []any{respTool}, "input": input}
	for k, v := range extra {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	b, _ := json.Marshal(body)
	return b
}

func userSays(text string) map[string]any { return map[string]any{"role": "user", "content": text} }

// post sends body to u with key and returns the status and the body.
func post(t *testing.T, u *ResponsesUpstream, key string, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, u.URL()+"/v1/responses", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	return Exchange(t, http.DefaultClient, req)
}

// respAnswer is the part of a response object the tests read.
type respAnswer struct {
	ID     string            `json:"id"`
	Status string            `json:"status"`
	Output []json.RawMessage `json:"output"`
	Error  json.RawMessage   `json:"error"`
	Usage  struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		TotalTokens  int `json:"total_tokens"`
		Details      struct {
			Reasoning int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// respItemOut is the part of an output item the tests read.
type respItemOut struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Encrypted string `json:"encrypted_content"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// mustAnswer returns a check that fails the test unless an answer is a
// 200 response object, and returns it with its items; it takes post's
// results as they are.
func mustAnswer(t *testing.T) func(int, http.Header, []byte) (respAnswer, []respItemOut) {
	return func(status int, h http.Header, body []byte) (respAnswer, []respItemOut) {
		t.Helper()
		return answerOf(t, status, h, body)
	}
}

// answerOf fails the test unless the answer is a 200 response object,
// and returns it with its items.
func answerOf(t *testing.T, status int, h http.Header, body []byte) (respAnswer, []respItemOut) {
	t.Helper()
	var a respAnswer
	if status != http.StatusOK || h.Get("Content-Type") != "application/json" || json.Unmarshal(body, &a) != nil {
		t.Fatalf("status %d: %s", status, body)
	}
	items := make([]respItemOut, len(a.Output))
	for i, raw := range a.Output {
		json.Unmarshal(raw, &items[i])
	}
	return a, items
}

// wantRefusal fails the test unless the answer is exactly OpenAI's
// envelope with status, code, param and msg.
func wantRefusal(t *testing.T, status int, body []byte, wantStatus int, code, param, msg string) {
	t.Helper()
	want := ResponsesError(wantStatus, "invalid_request_error", code, param, msg)
	if status != wantStatus || !bytes.Equal(body, want) {
		t.Errorf("got %d %s\nwant %d %s", status, body, wantStatus, want)
	}
}

// toolTurn answers "[tool]" (two calls with parallel) and returns the
// input of the next turn: the question, the output items as they came,
// an output for each call.
func toolTurn(t *testing.T, u *ResponsesUpstream, key string, parallel bool) []any {
	t.Helper()
	q := "[tool] list"
	if parallel {
		q = "[tool][parallel] list"
	}
	a, items := mustAnswer(t)(post(t, u, key, respBody(nil, userSays(q))))
	input := []any{userSays(q)}
	for i, raw := range a.Output {
		input = append(input, raw)
		if items[i].Type == "function_call" {
			input = append(input, map[string]any{"type": "function_call_output", "call_id": items[i].CallID, "output": "file"})
		}
	}
	return input
}

func TestResponsesToolLoop(t *testing.T) {
	u := newResponses(t, "oa")
	input := toolTurn(t, u, "k", true)
	a, items := mustAnswer(t)(post(t, u, "k", respBody(nil, input...)))
	if len(items) != 2 || items[0].Type != "reasoning" || items[0].Summary[0].Text != u.Summary(2) ||
		items[1].Type != "message" || items[1].ID != "msg_oa_2" || items[1].Content[0].Text != "oa answer 2." {
		t.Fatalf("turn 2: %+v", items)
	}
	if a.Usage.InputTokens != 100+10*len(input) || a.Usage.TotalTokens != a.Usage.InputTokens+50 || a.Usage.Details.Reasoning != 30 {
		t.Errorf("usage %+v", a.Usage)
	}
	if got := u.ReasoningBack(1); !slices.Equal(got, []string{"rs_oa_1"}) {
		t.Errorf("ReasoningBack(1) = %v", got)
	}
	if got := u.Issued(); len(got) != 2 || got["rs_oa_1"] != "org-oa" || got["rs_oa_2"] != "org-oa" {
		t.Errorf("Issued() = %v", got)
	}
}

func TestResponsesToolCallsAsScripted(t *testing.T) {
	u := newResponses(t, "oa")
	_, items := mustAnswer(t)(post(t, u, "k", respBody(nil, userSays("[tool][parallel] go"))))
	if len(items) != 3 || !strings.HasPrefix(items[0].Encrypted, "gAAAAABo") ||
		items[1].ID != "fc_oa_1_0" || items[1].CallID != "call_oa_1_0" || items[1].Name != "Bash" || items[1].Arguments != `{"command":"ls"}` ||
		items[2].CallID != "call_oa_1_1" || items[2].Arguments != `{"command":"pwd"}` {
		t.Fatalf("answer %+v", items)
	}
	// Without tools, or without the word, the answer is text.
	_, items = mustAnswer(t)(post(t, u, "k", respBody(map[string]any{"tools": nil}, userSays("[tool] go"))))
	if len(items) != 2 || items[1].Content[0].Text != "oa answer 2." {
		t.Fatalf("answer %+v", items)
	}
}

func TestResponsesWithoutSummaryOrEncryptedContent(t *testing.T) {
	u := newResponses(t, "oa")
	status, h, body := post(t, u, "k", respBody(map[string]any{"include": nil, "reasoning": nil}, userSays("hi")))
	_, items := answerOf(t, status, h, body)
	if items[0].Encrypted != "" || items[0].Summary == nil || len(items[0].Summary) != 0 || strings.Contains(string(body), "encrypted_content") {
		t.Fatalf("reasoning %s", body)
	}
	var a respAnswer
	json.Unmarshal(body, &a)
	// Without encrypted_content, the item would have to be looked up.
	status, _, body = post(t, u, "k", respBody(nil, userSays("hi"), a.Output[0], a.Output[1], userSays("again")))
	wantRefusal(t, status, body, http.StatusNotFound, "", "input", "Item with id 'rs_oa_1' not found. Items are not persisted when `store` is set to false. "+
		"Try again with `store` set to true, or remove this item from your input.")
}

func TestResponsesAcceptsAPlainStringAndTheEasyForms(t *testing.T) {
	u := newResponses(t, "oa")
	body, _ := json.Marshal(map[string]any{"model": "gpt-5", "store": false, "input": "hello"})
	mustAnswer(t)(post(t, u, "k", body))
	input := []any{
		map[string]any{"role": "developer", "content": "be brief"},
		map[string]any{"type": "message", "role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "see"},
			map[string]any{"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "auto"}}},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "ok", "annotations": []any{}}}},
		userSays("more"),
	}
	extra := map[string]any{"instructions": "sys", "max_output_tokens": 1000, "temperature": 1, "top_p": 1, "parallel_tool_calls": true,
		"metadata": map[string]any{"a": "b"}, "user": "u", "safety_identifier": "s", "prompt_cache_key": "p", "text": map[string]any{"verbosity": "low"},
		"truncation": "auto", "service_tier": "auto", "stream_options": map[string]any{"include_obfuscation": false}, "tool_choice": "auto"}
	mustAnswer(t)(post(t, u, "k", respBody(extra, input...)))
}

func TestResponsesRefusesInOpenAIsWords(t *testing.T) {
	call := map[string]any{"type": "function_call", "call_id": "call_x", "name": "Bash", "arguments": "{}"}
	output := map[string]any{"type": "function_call_output", "call_id": "call_x", "output": "ok"}
	for _, tc := range []struct {
		name              string
		body              []byte
		status            int
		code, param, want string
	}{
		{"unknown parameter", respBody(map[string]any{"foo": 1}, userSays("hi")), 400, "unknown_parameter", "foo", "Unknown parameter: 'foo'."},
		{"unknown in an item", respBody(nil, userSays("hi"), map[string]any{"type": "function_call", "call_id": "c", "name": "Bash", "arguments": "{}", "signature": "x"}),
			400, "unknown_parameter", "input[1].signature", "Unknown parameter: 'input[1].signature'."},
		{"status on reasoning", respBody(nil, userSays("hi"), map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}, "status": nil}),
			400, "unknown_parameter", "input[1].status", "Unknown parameter: 'input[1].status'."},
		{"unknown in reasoning", respBody(map[string]any{"reasoning": map[string]any{"budget": 1}}, userSays("hi")),
			400, "unknown_parameter", "reasoning.budget", "Unknown parameter: 'reasoning.budget'."},
		{"unknown in a part", respBody(nil, map[string]any{"role": "user", "content": []any{map[string]any{"type": "input_text", "text": "a", "cache_control": 1}}}),
			400, "unknown_parameter", "input[0].content[0].cache_control", "Unknown parameter: 'input[0].content[0].cache_control'."},
		{"id on a user message", respBody(nil, map[string]any{"role": "user", "content": "a", "id": "m"}),
			400, "unknown_parameter", "input[0].id", "Unknown parameter: 'input[0].id'."},
		{"input_text from the assistant", respBody(nil, userSays("a"), map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "input_text", "text": "b"}}}, userSays("c")),
			400, "invalid_value", "input[1].content[0]", "Invalid value: 'input_text'. Supported values are: 'output_text' and 'refusal'."},
		{"missing model", respBody(map[string]any{"model": nil}, userSays("hi")), 400, "missing_required_parameter", "model", "Missing required parameter: 'model'."},
		{"missing call_id", respBody(nil, userSays("hi"), map[string]any{"type": "function_call_output", "output": "x"}),
			400, "missing_required_parameter", "input[1].call_id", "Missing required parameter: 'input[1].call_id'."},
		{"wrong type", respBody(map[string]any{"store": "no"}, userSays("hi")), 400, "invalid_type", "store", "Invalid type for 'store': expected a boolean, but got a string instead."},
		{"bad effort", respBody(map[string]any{"reasoning": map[string]any{"effort": "max2"}}, userSays("hi")), 400, "invalid_value", "reasoning.effort",
			"Invalid value: 'max2'. Supported values are: 'none', 'minimal', 'low', 'medium', 'high', and 'xhigh'."},
		{"no JSON", []byte("{"), 400, "", "", "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. " +
			"The OpenAI API expects a JSON payload, but what was sent was not valid JSON. If you have trouble figuring out how to fix this, please contact us through our help center at help.openai.com.)"},
		{"store missing", respBody(map[string]any{"store": nil}, userSays("hi")), 400, "", "store",
			"This mock of the Responses API models stateless use only: send \"store\": false (the API's default is true)."},
		{"store true", respBody(map[string]any{"store": true}, userSays("hi")), 400, "", "store",
			"This mock of the Responses API models stateless use only: send \"store\": false (the API's default is true)."},
		{"reasoning without encrypted_content", respBody(nil, userSays("hi"), map[string]any{"type": "reasoning", "id": "rs_abc", "summary": []any{}}, userSays("x")),
			404, "", "input", "Item with id 'rs_abc' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."},
		{"item reference", respBody(nil, userSays("hi"), map[string]any{"type": "item_reference", "id": "msg_abc"}),
			404, "", "input", "Item with id 'msg_abc' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input."},
		{"encrypted_content of nobody", respBody(nil, userSays("hi"), map[string]any{"type": "reasoning", "id": "rs_abc", "summary": []any{}, "encrypted_content": "gAAAAABoBOGUS_CONTENT=="}, userSays("x")),
			400, "invalid_encrypted_content", "", "The encrypted content gAAA...NT== could not be verified. Reason: Encrypted content could not be decrypted or parsed."},
		{"output for no call", respBody(nil, userSays("hi"), output), 400, "", "input", "No tool call found for function call output with call_id call_x."},
		{"call without output, then a user", respBody(nil, userSays("hi"), call, userSays("x")), 400, "", "input", "No tool output found for function call call_x."},
		{"call without output, last", respBody(nil, userSays("hi"), call), 400, "", "input", "No tool output found for function call call_x."},
		{"empty input", respBody(map[string]any{"input": []any{}}), 400, "empty_array", "input", "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newResponses(t, "oa")
			status, h, body := post(t, u, "k", tc.body)
			wantRefusal(t, status, body, tc.status, tc.code, tc.param, tc.want)
			if ct := h.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if r := u.Requests(); len(r) != 1 || r[0].ErrorMessage != tc.want {
				t.Errorf("recorded %d requests, the last refused with %q", len(r), r[len(r)-1].ErrorMessage)
			}
		})
	}
}

func TestResponsesRefusesAWrongKeyAndModel(t *testing.T) {
	u := newResponses(t, "oa")
	u.RequireKey("sk-proj-right0123456789")
	status, _, body := post(t, u, "sk-proj-wrong0123456789", respBody(nil, userSays("hi")))
	wantRefusal(t, status, body, http.StatusUnauthorized, "invalid_api_key", "",
		"Incorrect API key provided: sk-proj-***********6789. You can find your API key at https://platform.openai.com/account/api-keys.")
	u.ServeModel("gpt-5")
	status, _, body = post(t, u, "sk-proj-right0123456789", respBody(map[string]any{"model": "gpt-6"}, userSays("hi")))
	wantRefusal(t, status, body, http.StatusNotFound, "model_not_found", "", "The model `gpt-6` does not exist or you do not have access to it.")
	mustAnswer(t)(post(t, u, "sk-proj-right0123456789", respBody(nil, userSays("hi"))))
}

func TestResponsesRefusesAlteredEncryptedContent(t *testing.T) {
	u := newResponses(t, "oa")
	input := toolTurn(t, u, "k", false)
	var rs map[string]any
	json.Unmarshal(input[1].(json.RawMessage), &rs)
	token := rs["encrypted_content"].(string)
	mid := len(token) / 2
	flip := map[byte]byte{'A': 'B'}[token[mid]]
	if flip == 0 {
		flip = 'A'
	}
	rs["encrypted_content"] = token[:mid] + string(flip) + token[mid+1:]
	input[1] = rs
	status, _, body := post(t, u, "k", respBody(nil, input...))
	wantRefusal(t, status, body, http.StatusBadRequest, "invalid_encrypted_content", "",
		"The encrypted content gAAA..."+token[len(token)-4:]+" could not be verified. Reason: Encrypted content could not be decrypted or parsed.")

	// Sealed for another item, it does not verify either.
	rs["encrypted_content"], rs["id"] = token, "rs_other"
	status, _, body = post(t, u, "k", respBody(nil, input...))
	wantRefusal(t, status, body, http.StatusBadRequest, "invalid_encrypted_content", "",
		"The encrypted content gAAA..."+token[len(token)-4:]+" could not be verified. Reason: Encrypted content could not be decrypted or parsed.")
}

func TestResponsesRefusesAnotherOrganization(t *testing.T) {
	u := newResponses(t, "oa")
	u.SetOrganization("k2", "org-else")
	input := toolTurn(t, u, "k1", false)
	status, _, body := post(t, u, "k2", respBody(nil, input...))
	token := input[1].(json.RawMessage)
	var rs respItemOut
	json.Unmarshal(token, &rs)
	wantRefusal(t, status, body, http.StatusBadRequest, "invalid_encrypted_content", "",
		"The encrypted content "+shortToken(rs.Encrypted)+" could not be verified. Reason: Encrypted content organization_id did not match the target organization.")

	// Another upstream reads it for a key of the same organization: one
	// OpenAI behind two names; its own items are the ones it counts.
	v := newResponses(t, "other")
	v.SetOrganization("k3", "org-oa")
	mustAnswer(t)(post(t, v, "k3", respBody(nil, input...)))
	if back := v.ReasoningBack(0); len(back) != 0 {
		t.Errorf("the other upstream counts %v as its own", back)
	}
	status, _, body = post(t, v, "k1", respBody(nil, input...))
	wantRefusal(t, status, body, http.StatusBadRequest, "invalid_encrypted_content", "",
		"The encrypted content "+shortToken(rs.Encrypted)+" could not be verified. Reason: Encrypted content organization_id did not match the target organization.")
}

func TestResponsesReasoningNeedsItsFollowingItem(t *testing.T) {
	u := newResponses(t, "oa")
	input := toolTurn(t, u, "k", false) // user, reasoning, call, output
	following := "Item 'rs_oa_1' of type 'reasoning' was provided without its required following item."
	for _, tc := range []struct {
		name  string
		input []any
		want  string
	}{
		{"last", input[:2], following},
		{"then a user", []any{input[0], input[1], userSays("x")}, following},
		{"then a call of another id", []any{input[0], input[1],
			map[string]any{"type": "function_call", "id": "fc_else", "call_id": "call_oa_1_0", "name": "Bash", "arguments": "{}"}, input[3]}, following},
		{"the call without it", []any{input[0], input[2], input[3]},
			"Item 'fc_oa_1_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_oa_1'."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := post(t, u, "k", respBody(nil, tc.input...))
			wantRefusal(t, status, body, http.StatusBadRequest, "", "input", tc.want)
		})
	}
}

func TestResponsesTakesAnAnswerBackByItsID(t *testing.T) {
	u := newResponses(t, "oa")
	a, _ := mustAnswer(t)(post(t, u, "k", respBody(nil, userSays("hi"))))
	rs, msg := a.Output[0], a.Output[1]
	mustAnswer(t)(post(t, u, "k", respBody(nil, userSays("hi"), rs, msg, userSays("again"))))
	if back := u.ReasoningBack(1); !slices.Equal(back, []string{"rs_oa_1"}) {
		t.Errorf("ReasoningBack(1) = %v", back)
	}

	// Without ids, as OpenAI's Codex sends them with store false, the
	// reasoning item (known by its encrypted content) and the message in
	// its easy form are taken; a user message is no following item.
	var easy, bare map[string]any
	json.Unmarshal(msg, &easy)
	json.Unmarshal(rs, &bare)
	delete(easy, "id")
	delete(easy, "status")
	delete(easy, "type")
	delete(bare, "id")
	mustAnswer(t)(post(t, u, "k", respBody(nil, userSays("hi"), bare, easy, userSays("again"))))
	if back := u.ReasoningBack(2); !slices.Equal(back, []string{"rs_oa_1"}) {
		t.Errorf("ReasoningBack(2) without ids = %v", back)
	}
	status, _, body := post(t, u, "k", respBody(nil, userSays("hi"), bare, userSays("again")))
	wantRefusal(t, status, body, http.StatusBadRequest, "", "input", "Item 'rs_oa_1' of type 'reasoning' was provided without its required following item.")
	// Without the reasoning item, the message that carries its id lacks it.
	status, _, body = post(t, u, "k", respBody(nil, userSays("hi"), msg, userSays("again")))
	wantRefusal(t, status, body, http.StatusBadRequest, "", "input", "Item 'msg_oa_1' of type 'message' was provided without its required 'reasoning' item: 'rs_oa_1'.")
}

func TestResponsesFailNextAsItIs(t *testing.T) {
	u := newResponses(t, "oa")
	fail := string(ResponsesError(http.StatusTooManyRequests, "requests", "rate_limit_exceeded", "", "Rate limit reached."))
	u.FailNext(http.StatusTooManyRequests, fail)
	status, _, body := post(t, u, "k", respBody(nil, userSays("hi")))
	if status != http.StatusTooManyRequests || string(body) != fail {
		t.Fatalf("%d %s", status, body)
	}
	mustAnswer(t)(post(t, u, "k", respBody(nil, userSays("hi"))))
}

// FuzzResponsesRequest: the mock's reader never panics, whatever the body,
// an accepted body has items, and encrypted_content is read back only as
// it was sealed.
func FuzzResponsesRequest(f *testing.F) {
	f.Add(respBody(nil, userSays("hi")), "org-a", "rs_1", "msg_1")
	f.Add(respBody(nil, userSays("hi"), map[string]any{"type": "reasoning", "id": "rs_1", "summary": []any{}, "encrypted_content": "gAAAAABo"}), "", "", "")
	f.Add([]byte(`{"model":"m","input":[{"role":"assistant","content":[{"type":"output_text","text":"a"}],"id":"msg_1"}]}`), "o", "i", "n")
	f.Add([]byte(`{"model":"m","store":false,"max_output_tokens":1,"input":[{"type":"function_call_output","call_id":"c","output":[{"type":"input_file","filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"}]}]}`), "o", "i", "n")
	f.Fuzz(func(t *testing.T, body []byte, org, id, next string) {
		if req, e := parseRespRequest(body); e == nil && len(req.items) == 0 {
			t.Fatalf("accepted without items: %s", body)
		}
		want := respSealed{org: org, id: id, next: next}
		token := sealReasoning(want)
		if got, ok := openReasoning(token); !ok || got != want {
			t.Fatalf("sealed %+v, opened %+v %v", want, got, ok)
		}
		if _, ok := openReasoning(token[:len(token)-4] + "AAA="); ok && !strings.HasSuffix(token, "AAA=") {
			t.Fatalf("a token with its end changed opened")
		}
		openReasoning(string(body))
	})
}
