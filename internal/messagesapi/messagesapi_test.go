package messagesapi

import (
	"mime"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestEndpointOf(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		want           Endpoint
		prefix         string
	}{
		{"POST", "/v1/messages?beta=true", Messages, ""},
		{"POST", "/v1/messages", Messages, ""},
		{"POST", "/v1/messages/", Messages, ""},
		{"POST", "/anthropic/v1/messages/", Messages, "/anthropic"},
		{"POST", "/v1/models", Other, ""},
		{"POST", "/api/anthropic/v1/messages", Messages, "/api/anthropic"},
		{"POST", "/v1/messages/count_tokens?beta=true", CountTokens, ""},
		{"POST", "/kimi/v1/messages/count_tokens/", CountTokens, "/kimi"},
		{"GET", "/v1/messages", Other, ""},
		{"POST", "/v1/messages/batches", Other, ""},
		{"POST", "/v1/chat/completions", Other, ""},
	} {
		ep, prefix := EndpointOf(httptest.NewRequest(tc.method, tc.target, nil))
		if ep != tc.want || prefix != tc.prefix {
			t.Errorf("%s %s: %v %q, want %v %q", tc.method, tc.target, ep, prefix, tc.want, tc.prefix)
		}
	}
}

func TestMediaType(t *testing.T) {
	for in, want := range map[string]string{
		"text/event-stream; charset=utf-8": EventStream,
		"Application/JSON":                 JSON,
		"":                                 "",
		"nonsense;;":                       "nonsense",
		"application/json":                 JSON,
		"text/event-stream":                EventStream,
		"application/vnd.api+json":         "application/vnd.api+json",
		"text/":                            "",
		"/json":                            "",
		"a/b/c":                            "",
	} {
		if got := MediaType(http.Header{"Content-Type": {in}}); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// FuzzMediaType: MediaType reads every Content-Type as mime.ParseMediaType
// does, its quick path for a bare media type included.
func FuzzMediaType(f *testing.F) {
	for _, s := range []string{"application/json", "text/event-stream; charset=utf-8", "Application/JSON", "a/b/c", "text/", "x/y+z.w-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		want, _, _ := mime.ParseMediaType(ct)
		if got := MediaType(http.Header{"Content-Type": {ct}}); got != want {
			t.Fatalf("MediaType(%q) = %q, ParseMediaType says %q", ct, got, want)
		}
	})
}
