package llmthinking

import (
	"net/http/httptest"
	"testing"
)

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
