package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestUpstreamAddress(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	if !strings.HasPrefix(up.HostPort(), "127.0.0.1:") || up.URL() != "http://"+up.HostPort() {
		t.Errorf("URL %q, HostPort %q", up.URL(), up.HostPort())
	}
}

func TestUnknownEndpoints(t *testing.T) {
	up := newUpstream(t, "a", Lenient)
	for i, r := range []struct{ method, path string }{
		{http.MethodGet, "/v1/messages"},
		{http.MethodPost, "/v1/complete"},
		{http.MethodPost, "/v1/messages/batches"},
	} {
		req, _ := http.NewRequest(r.method, up.URL()+r.path, strings.NewReader("{}"))
		status, _, body := Exchange(t, http.DefaultClient, req)
		want := fmt.Sprintf(`{"type":"error","error":{"type":"not_found_error","message":"Not Found"},"request_id":"req_a_%d"}`, i+1)
		if status != http.StatusNotFound || string(body) != want {
			t.Errorf("%s %s: %d %s", r.method, r.path, status, body)
		}
		if got := up.Requests()[i]; got.Method != r.method || got.Path != r.path || got.Status != http.StatusNotFound || got.ErrorMessage != "Not Found" {
			t.Errorf("Received %+v", got)
		}
	}
}

func TestUnparsableBodies(t *testing.T) {
	for _, f := range []Flavor{Strict, Lenient, Unsigned} {
		up := newUpstream(t, "a", f)
		for _, tt := range []struct{ body, want string }{
			{`{"model":"m"}`, "messages: Field required"},
			{`{"messages":{}}`, "messages: Input should be a valid list"},
			{`{"messages":null}`, "messages: Input should be a valid list"},
		} {
			c := &Conversation{BaseURL: up.URL()}
			turn, err := c.post("/v1/messages", []byte(tt.body))
			wantInvalid(t, turn, err, tt.want)
		}
		c := &Conversation{BaseURL: up.URL()}
		turn, err := c.post("/v1/messages", []byte(`{"messages":`))
		if err != nil || turn.Status != http.StatusBadRequest || !strings.HasPrefix(turn.ErrorMessage, "There was an error parsing the body of your request: ") {
			t.Errorf("%v: truncated body: %d %q", f, turn.Status, turn.ErrorMessage)
		}
	}
}

func TestRequestsAndReset(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	c := NewConversation(up.URL(), "session-1")
	body := c.Body()
	must(t)(c.Say("hi"))
	reqs := up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/messages" || r.RawQuery != "beta=true" || r.Status != http.StatusOK || r.ErrorMessage != "" {
		t.Errorf("Received %+v", r)
	}
	if want := bytes.Replace(body, []byte(`"messages":[]`), []byte(`"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]`), 1); !bytes.Equal(r.Body, want) {
		t.Errorf("body\n got %s\nwant %s", r.Body, want)
	}
	if got := r.Header.Get("X-Claude-Code-Session-Id"); got != "session-1" {
		t.Errorf("session header %q", got)
	}
	reqs[0].Body[0] = 'X'
	reqs[0].Header.Set("X-Claude-Code-Session-Id", "changed")
	if again := up.Requests()[0]; again.Body[0] != '{' || again.Header.Get("X-Claude-Code-Session-Id") != "session-1" {
		t.Error("Requests returned shared memory")
	}
	up.Reset()
	if n := len(up.Requests()); n != 0 {
		t.Errorf("%d requests after Reset", n)
	}
	turn := must(t)(c.Say("still valid after Reset"))
	if want := `{"type":"text","text":"a answer 2."}`; !bytes.Contains(turn.Message, []byte(want)) {
		t.Errorf("message %s, want it to hold %s", turn.Message, want)
	}
	if got := turn.Header.Get("Request-Id"); got != "req_a_2" {
		t.Errorf("Request-Id %q", got)
	}
}

func TestCountTokens(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	c := NewConversation(up.URL(), "session-1")
	must(t)(c.Say("hi"))
	turn := must(t)(c.CountTokens())
	r := up.Requests()[1]
	if r.Path != "/v1/messages/count_tokens" || r.RawQuery != "beta=true" {
		t.Errorf("path %q query %q", r.Path, r.RawQuery)
	}
	if want := bytes.TrimSuffix(c.Body(), []byte(`,"stream":true}`)); !bytes.Equal(r.Body, append(want, '}')) {
		t.Errorf("count_tokens body\n got %s\nwant %s}", r.Body, want)
	}
	if want := fmt.Sprintf(`{"input_tokens":%d}`, len(r.Body)/4); string(turn.Body) != want {
		t.Errorf("count_tokens answer %s, want %s", turn.Body, want)
	}
	if turn.Message != nil || len(c.Messages) != 2 {
		t.Errorf("CountTokens changed the history: %s", turn.Message)
	}
	if turn := must(t)(c.Say("next")); !bytes.Contains(turn.Message, []byte(`"a answer 2."`)) {
		t.Errorf("count_tokens advanced the response counter: %s", turn.Message)
	}

	other := newUpstream(t, "b", Strict)
	c.BaseURL = other.URL()
	turn, err := c.CountTokens()
	wantInvalid(t, turn, err, "messages.1.content.0: Invalid `signature` in `thinking` block")
}

func TestResponsesFollowTheRequestModel(t *testing.T) {
	up := newUpstream(t, "a", Unsigned)
	c := NewConversation(up.URL(), "session-1")
	c.Model, c.Stream = "glm-4.6", false
	turn := must(t)(c.Say("hi"))
	var m struct {
		Model string `json:"model"`
		ID    string `json:"id"`
	}
	json.Unmarshal(turn.Body, &m)
	if m.Model != "glm-4.6" || m.ID != "msg_a_1" {
		t.Errorf("model %q id %q", m.Model, m.ID)
	}
}

func TestResponseIsRecordedAsWritten(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	up.SetGzip(true)
	c := NewConversation(up.URL(), "session-1")
	streamed := must(t)(c.Say("a stream"))
	c.Stream = false
	compressed := must(t)(c.Say("gzipped JSON"))
	c.Messages = append(c.Messages, []byte(`{"role":"user","content":""}`))
	refused, err := c.Send()
	if err != nil || refused.Status != http.StatusBadRequest {
		t.Fatalf("status %d, %v", refused.Status, err)
	}
	for i, turn := range []*Turn{streamed, compressed, refused} {
		if got := up.Requests()[i].Response; len(got) == 0 || !bytes.Equal(got, turn.Raw) {
			t.Errorf("request %d: Response\n got %q\nwant %q", i, got, turn.Raw)
		}
		if got := up.RequestsOf("session-1")[i].Response; !bytes.Equal(got, turn.Raw) {
			t.Errorf("request %d: RequestsOf Response %q", i, got)
		}
	}
}

func TestRefuseThinkingAndFields(t *testing.T) {
	sent := func(turn *Turn, err error) *Turn {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return turn
	}
	up := newUpstream(t, "ollama", Unsigned)
	up.RefuseThinking("llama3.2")
	c := NewConversation(up.URL(), "s")
	c.Model = "llama3.2"
	turn := sent(c.Say("hi"))
	if turn.Status != http.StatusBadRequest || turn.ErrorType != "invalid_request_error" || turn.ErrorMessage != `"llama3.2" does not support thinking` {
		t.Fatalf("thinking on a model without it: %d %s %q", turn.Status, turn.ErrorType, turn.ErrorMessage)
	}
	c.Thinking = "disabled"
	if turn := sent(c.Send()); turn.Status != http.StatusOK {
		t.Fatalf("without thinking: %d %q", turn.Status, turn.ErrorMessage)
	}
	c.Model, c.Thinking = "qwen3", "enabled"
	if turn := sent(c.Say("again")); turn.Status != http.StatusOK {
		t.Fatalf("another model: %d %q", turn.Status, turn.ErrorMessage)
	}

	vllm := newUpstream(t, "vllm", Lenient)
	vllm.RefuseFields("context_management")
	c = NewConversation(vllm.URL(), "s")
	turn = sent(c.Say("hi"))
	if turn.Status != http.StatusBadRequest || turn.ErrorMessage != "context_management: Extra inputs are not permitted" {
		t.Fatalf("an unknown field: %d %q", turn.Status, turn.ErrorMessage)
	}
	c.Thinking = "disabled" // Claude Code sends context_management only with thinking
	if turn := sent(c.Send()); turn.Status != http.StatusOK {
		t.Fatalf("without the field: %d %q", turn.Status, turn.ErrorMessage)
	}
}
