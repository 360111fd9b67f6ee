package llmthinking

import (
	"net/http/httptest"
	"testing"
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
