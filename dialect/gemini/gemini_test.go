package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/dialecttest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

var testSigner = NewSigner(&envelope.Key{1}, "gemini.test:443")

func answerOptions() AnswerOptions {
	return AnswerOptions{Model: "claude-sonnet-4-5", Signer: testSigner, InputTokens: 7}
}

// translateInto translates body for Gemini 3 into the memory grow gives.
func translateInto(body []byte, grow dialecttest.Grow) ([]byte, error) {
	tr, err := TranslateRequest(body, RequestOptions{Model: "gemini-3-pro-preview", Signer: testSigner, Grow: grow})
	return tr.Body, err
}

// An answer of Gemini 3 with a thought, text, and two calls, the first
// signed; and the same as a stream sends it, cut anywhere between parts.
const wholeAnswer = `{"candidates":[{"content":{"role":"model","parts":[` +
	`{"text":"Let me \"check\".","thought":true},` +
	`{"text":"Looking."},` +
	`{"functionCall":{"id":"c1","name":"Bash","args":{"command":"ls -l"}},"thoughtSignature":"EpEg+/=="},` +
	`{"functionCall":{"name":"Read","args":{"path":"a"}}}]},"finishReason":"STOP","index":0}],` +
	`"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"thoughtsTokenCount":30,"cachedContentTokenCount":40},"responseId":"r1"}`

var streamedAnswer = []string{
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"Let me \"ch","thought":true}]},"index":0}],"responseId":"r1"}`,
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"eck\".","thought":true},{"text":"Look"}]},"index":0}],"responseId":"r1"}`,
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"ing."},{"functionCall":{"id":"c1","name":"Bash","args":{"command":"ls -l"}},"thoughtSignature":"EpEg+/=="}]},"index":0}],"responseId":"r1"}`,
	`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"Read","args":{"path":"a"}}}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":20,"thoughtsTokenCount":30,"cachedContentTokenCount":40},"responseId":"r1"}`,
}

// addAnswers seeds f with the answer, whole and as its events.
func addAnswers(f *testing.F) {
	f.Add([]byte(wholeAnswer))
	for _, e := range streamedAnswer {
		f.Add([]byte(e))
	}
}

// streamOf runs events through a Stream, as the transport reads them.
func streamOf(t *testing.T, events ...string) []byte {
	t.Helper()
	var src bytes.Buffer
	for _, e := range events {
		src.WriteString("data: " + e + "\r\n\r\n")
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(messagesapi.NewReader(&src, NewStream(answerOptions()))); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestStreamAndJSONGiveTheSameBlocks: the blocks of an answer, and so
// their keys, do not depend on whether it was streamed, nor on how the
// stream cut it.
func TestStreamAndJSONGiveTheSameBlocks(t *testing.T) {
	whole, err := TranslateAnswer([]byte(wholeAnswer), answerOptions())
	if err != nil {
		t.Fatal(err)
	}
	msg, err := claudecode.AssembleStream(streamOf(t, streamedAnswer...))
	if err != nil {
		t.Fatal(err)
	}
	type message struct {
		Content    []map[string]any `json:"content"`
		StopReason string           `json:"stop_reason"`
	}
	var a, b message
	var usage struct {
		Usage map[string]any `json:"usage"`
	}
	json.Unmarshal(whole, &usage)
	if err := json.Unmarshal(whole, &a); err != nil {
		t.Fatalf("%v: %s", err, whole)
	}
	if err := json.Unmarshal(msg, &b); err != nil {
		t.Fatal(err)
	}
	if len(a.Content) != 5 {
		t.Fatalf("blocks %v", a.Content)
	}
	for i := range a.Content {
		if a.Content[i]["type"] == "tool_use" {
			// Ids of calls Gemini gave none are the translation's own.
			delete(a.Content[i], "id")
			delete(b.Content[i], "id")
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("JSON  %s\nstream %s", ja, jb)
	}
	want := []string{"thinking", "text", "thinking", "tool_use", "tool_use"}
	for i, typ := range want {
		if a.Content[i]["type"] != typ {
			t.Fatalf("block %d is %v, want %s", i, a.Content[i]["type"], typ)
		}
	}
	if a.Content[0]["thinking"] != `Let me "check".` || a.StopReason != "tool_use" {
		t.Fatalf("answer %s", ja)
	}
	if u := usage.Usage; u["input_tokens"] != 60.0 || u["output_tokens"] != 50.0 || u["cache_read_input_tokens"] != 40.0 {
		t.Fatalf("usage %v", u)
	}
	// The signature rides before its call, and opens to it.
	sig := a.Content[2]["signature"].(string)
	place, payload, ok := envelope.Open(testSigner.Key, Provider, testSigner.Upstream, sha256.Sum256(nil), []byte(sig))
	if !ok || place != envelope.OnFollowing || string(payload) != "EpEg+/==" {
		t.Fatalf("the call's envelope: %q %c %q %v", sig, place, payload, ok)
	}
	if !strings.HasPrefix(string(whole), `{"id":"msg_r1",`) {
		t.Fatalf("answer %s", whole)
	}
}

// TestRequestPutsSignaturesBack: the answer above, replayed in the
// history, goes back with the signature on the call it came on, the
// Gemini id on the call and its response, and nothing of the thought
// (which carried no signature); a call of the current turn that is not
// Gemini's gets the dummy.
func TestRequestPutsSignaturesBack(t *testing.T) {
	whole, err := TranslateAnswer([]byte(wholeAnswer), answerOptions())
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Content []json.RawMessage `json:"content"`
	}
	json.Unmarshal(whole, &m)
	var ids []string
	for _, b := range m.Content {
		var blk struct{ Type, ID string }
		json.Unmarshal(b, &blk)
		if blk.Type == "tool_use" {
			ids = append(ids, blk.ID)
		}
	}
	content, _ := json.Marshal(m.Content)
	body := `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"go"},{"role":"assistant","content":` + string(content) + `},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + ids[0] + `","content":"x"},{"type":"tool_result","tool_use_id":"` + ids[1] + `","content":"y","is_error":true}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01Claude","name":"Bash","input":{}}]}]}`
	tr, err := TranslateRequest([]byte(body), RequestOptions{Model: "gemini-3-pro-preview", Signer: testSigner})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"contents":[{"role":"user","parts":[{"text":"go"}]},` +
		`{"role":"model","parts":[{"text":"Looking."},{"functionCall":{"name":"Bash","id":"c1","args":{"command":"ls -l"}},"thoughtSignature":"EpEg+/=="},{"functionCall":{"name":"Read","args":{"path":"a"}}}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"Bash","id":"c1","response":{"output":"x"}}},{"functionResponse":{"name":"Read","response":{"error":"y"}}}]},` +
		`{"role":"model","parts":[{"functionCall":{"name":"Bash","args":{}},"thoughtSignature":"` + DummySignature + `"}]},` +
		`{"role":"user","parts":[{"functionResponse":{"name":"Bash","response":{"output":"(no result)"}}}]}]}`
	if string(tr.Body) != want {
		t.Fatalf("got  %s\nwant %s", tr.Body, want)
	}
	// Another upstream's key opens nothing: the signature stays home.
	tr, _ = TranslateRequest([]byte(body), RequestOptions{Signer: NewSigner(&envelope.Key{2}, testSigner.Upstream)})
	if strings.Contains(string(tr.Body), "EpEg") {
		t.Fatalf("a signature went out under another key: %s", tr.Body)
	}
}

// TestStreamErrors: an error object, in an event or written bare after
// the last one, ends the stream with the Messages API's error event; a
// stream cut before its finish reason with an error too, never a bare end.
func TestStreamErrors(t *testing.T) {
	for name, c := range map[string]struct {
		src, typ, msg string
	}{
		"event": {"data: " + streamedAnswer[0] + "\r\n\r\ndata: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n",
			"overloaded_error", "The model is overloaded."},
		"bare": {"data: " + streamedAnswer[0] + "\r\n\r\n{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Quota.\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n",
			"rate_limit_error", "Quota."},
		"cut": {"data: " + streamedAnswer[0] + "\r\n\r\n", "api_error", "the upstream's stream ended before its answer was complete"},
	} {
		var out bytes.Buffer
		out.ReadFrom(messagesapi.NewReader(strings.NewReader(c.src), NewStream(answerOptions())))
		want := string(messagesapi.AppendErrorEvent(nil, c.typ, c.msg))
		if !strings.HasSuffix(out.String(), want) || strings.Contains(out.String(), "message_stop") {
			t.Errorf("%s: got %s\nwant it to end with %s", name, out.String(), want)
		}
	}
}

// TestThinkingOffForTheToolLoopRule: a config llm_thinking took out for the
// Messages API's tool-loop rule still asks Gemini for its thoughts.
func TestThinkingOffForTheToolLoopRule(t *testing.T) {
	tr, err := TranslateRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`),
		RequestOptions{Model: "gemini-3-pro-preview", Signer: testSigner, ThinkingOff: []byte(`{"type":"enabled","budget_tokens":2048}`)})
	if err != nil || !strings.Contains(string(tr.Body), `"includeThoughts":true`) {
		t.Errorf("%v: %s", err, tr.Body)
	}
}
