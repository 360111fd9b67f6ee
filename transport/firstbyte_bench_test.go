package transport

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
)

// benchmarkFirstByte measures a streamed request's round trip through rt
// to its first byte, the upstream sending one event; the rest of the
// answer is read too, so that the connection serves the next request.
func benchmarkFirstByte(b *testing.B, rt http.RoundTripper, first string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
	}))
	defer srv.Close()
	body := `{"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	buf := make([]byte, 1)
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
		req.Header.Set("X-Api-Key", "k")
		resp, err := rt.RoundTrip(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// BenchmarkFirstByteHTTP: the http transport relaying the stream.
func BenchmarkFirstByteHTTP(b *testing.B) {
	ht := &reverseproxy.HTTPTransport{}
	provisioned(b, ht)
	benchmarkFirstByte(b, ht, "event: message_start\ndata: {\"type\":\"message_start\"}\n\n")
}

// BenchmarkFirstByteResponses: transport responses translating it.
func BenchmarkFirstByteResponses(b *testing.B) {
	r := &Responses{SigningKey: "bench"}
	provisioned(b, r)
	benchmarkFirstByte(b, r, "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"status\":\"in_progress\"},\"sequence_number\":0}\n\n"+
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\"},\"sequence_number\":1}\n\n")
}
