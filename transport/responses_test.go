package transport

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestResponsesValidate: a summary the API does not take, a negative cap
// and one below the API's least are errors at provision.
func TestResponsesValidate(t *testing.T) {
	for _, tc := range []struct {
		r    Responses
		want string // in the error; "" for none
	}{
		{Responses{ReasoningSummary: "verbose"}, "reasoning_summary"},
		{Responses{MaxTokens: -1}, "cannot be negative"},
		{Responses{MaxTokens: 8}, "no fewer than 16"},
		{Responses{MaxTokens: 16}, ""},
	} {
		err := tc.r.Validate()
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.r, err, tc.want)
		}
	}
}

// TestResponsesCountTokens: count_tokens is answered by the transport, an
// estimate, without asking the upstream.
func TestResponsesCountTokens(t *testing.T) {
	up := &recorder{status: 500}
	srv := httptest.NewServer(up)
	defer srv.Close()
	r := &Responses{SigningKey: "test secret"}
	provisioned(t, r)
	resp, body := post(t, r, srv.URL+"/v1/messages/count_tokens", `{"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"`+strings.Repeat("word ", 400)+`"}]}`)
	var got struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || resp.StatusCode != 200 || got.InputTokens < 400 || got.InputTokens > 600 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if n := len(up.got); n != 0 {
		t.Fatalf("the upstream got %d requests", n)
	}
}
