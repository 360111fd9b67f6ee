package llmthinking

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/thinking"
)

func TestEndpointOf(t *testing.T) {
	tests := []struct {
		method, target string
		want           endpoint
	}{
		{"POST", "/v1/messages?beta=true", messagesEndpoint},
		{"POST", "/v1/messages", messagesEndpoint},
		{"POST", "/anthropic/v1/messages/", messagesEndpoint},
		{"POST", "/v1/messages/count_tokens?beta=true", countTokensEndpoint},
		{"GET", "/v1/messages", otherEndpoint},
		{"POST", "/v1/models", otherEndpoint},
		{"POST", "/v1/messages/batches", otherEndpoint},
		{"POST", "/v1/chat/completions", otherEndpoint},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, tt.target, nil)
		if got := endpointOf(r); got != tt.want {
			t.Errorf("%s %s: endpoint %d, want %d", tt.method, tt.target, got, tt.want)
		}
	}
}

func TestUnreadable(t *testing.T) {
	tests := []struct {
		contentType, encoding string
		unreadable            bool
	}{
		{"application/json", "", false},
		{"Application/JSON; charset=utf-8", "", false},
		{"application/vnd.api+json", "", false},
		{"", "", false},
		{"text/plain", "", true},
		{"multipart/form-data; boundary=x", "", true},
		{"application/json", "gzip", true},
		{"application/json", "identity", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if tt.contentType != "" {
			r.Header.Set("Content-Type", tt.contentType)
		}
		if tt.encoding != "" {
			r.Header.Set("Content-Encoding", tt.encoding)
		}
		if got := unreadable(r) != ""; got != tt.unreadable {
			t.Errorf("%q/%q: unreadable %v, want %v", tt.contentType, tt.encoding, got, tt.unreadable)
		}
	}
}

func TestReadBody(t *testing.T) {
	body := strings.Repeat("x", 100)

	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body))
	got, err := readBody(r, 100)
	if err != nil || string(got) != body {
		t.Fatalf("body within the limit: %q, %v", got, err)
	}

	r = httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body))
	if _, err := readBody(r, 99); !errors.Is(err, errBodyTooLarge) {
		t.Fatalf("declared length over the limit: err = %v", err)
	}

	// A chunked body declares no length: the limit applies while reading.
	r = httptest.NewRequest("POST", "/v1/messages", io.MultiReader(strings.NewReader(body)))
	r.ContentLength = -1
	if _, err := readBody(r, 99); !errors.Is(err, errBodyTooLarge) {
		t.Fatalf("chunked body over the limit: err = %v", err)
	}
	r = httptest.NewRequest("POST", "/v1/messages", io.MultiReader(strings.NewReader(body)))
	r.ContentLength = -1
	if got, err := readBody(r, 100); err != nil || !bytes.Equal(got, []byte(body)) {
		t.Fatalf("chunked body within the limit: %q, %v", got, err)
	}

	// A client that stops sending early is an error, not a short body.
	r = httptest.NewRequest("POST", "/v1/messages", strings.NewReader(body[:50]))
	r.ContentLength = 100
	if _, err := readBody(r, 1000); err == nil || errors.Is(err, errBodyTooLarge) {
		t.Fatalf("truncated body: err = %v", err)
	}
}

func TestRefuseBodyWritesTheAnthropicEnvelope(t *testing.T) {
	h := &Handler{MaxBodySize: 1024}
	w := httptest.NewRecorder()
	if err := h.refuseBody(w, errBodyTooLarge); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking max_body_size 1024)."}}`
	if w.Code != http.StatusRequestEntityTooLarge || w.Body.String() != want || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String())
	}
}

func TestDecide(t *testing.T) {
	h := &Handler{}
	h.action = modeActions[ModeConvertToText]
	tests := []struct {
		origin string
		mixed  bool
		keep   bool
	}{
		{"a", false, true},
		{"a", true, true},
		{"b", false, false},
		{"b", true, false},
		{"", false, true},
		{"", true, false},
	}
	for _, tt := range tests {
		got := h.decide(tt.origin, "a", tt.mixed)
		if keep := got == thinking.Keep; keep != tt.keep {
			t.Errorf("origin %q mixed %v to a: action %d, keep want %v", tt.origin, tt.mixed, got, tt.keep)
		}
		if !tt.keep && got != h.action {
			t.Errorf("origin %q mixed %v: action %d, want the mode's", tt.origin, tt.mixed, got)
		}
	}
}
