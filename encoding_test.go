package llmthinking

import (
	"net/http/httptest"
	"testing"
)

func TestNarrowAcceptEncoding(t *testing.T) {
	tests := map[string]bool{
		"gzip, deflate, br, zstd": true,
		"br;q=1.0, gzip;q=0.8":    true,
		"GZIP":                    true,
		"gzip;q=0":                false,
		"br, zstd":                false,
		"":                        false,
		"identity":                false,
	}
	for accept, gzip := range tests {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if accept != "" {
			r.Header.Set("Accept-Encoding", accept)
		}
		narrowAcceptEncoding(r, false)
		want := map[bool]string{true: "gzip", false: "identity"}[gzip]
		if got := r.Header.Get("Accept-Encoding"); got != want {
			t.Errorf("JSON response, client accepts %q: upstream asked for %q, want %q", accept, got, want)
		}
		narrowAcceptEncoding(r, true)
		if got := r.Header.Get("Accept-Encoding"); got != "identity" {
			t.Errorf("stream, client accepts %q: upstream asked for %q, want identity", accept, got)
		}
	}
}
