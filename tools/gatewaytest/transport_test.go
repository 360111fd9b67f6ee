package gatewaytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestTransportRetriesOverloaded: a 529 is sent again after its
// Retry-After, body and all, as the SDKs do.
func TestTransportRetriesOverloaded(t *testing.T) {
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		bodies = append(bodies, string(b))
		if len(bodies) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(statusOverloaded)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	client := &http.Client{Transport: NewTransport()}
	resp, err := client.Post(srv.URL, "application/json", strings.NewReader("the body"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || string(got) != "ok" || len(bodies) != 2 || bodies[1] != "the body" {
		t.Fatalf("got %d %q after %q", resp.StatusCode, got, bodies)
	}
}

// TestTransportRetriesADroppedGet: a request without a body, such as a GET
// of the admin API while Caddy replaces its admin server, is sent again
// when its connection breaks before any answer, as one with a body is.
func TestTransportRetriesADroppedGet(t *testing.T) {
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if attempts.Add(1) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			conn.Close() // no answer: the client reads EOF
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	client := &http.Client{Transport: Transport{&http.Transport{DisableKeepAlives: true}}}
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatalf("GET after a dropped connection: %v (%d attempts)", err, attempts.Load())
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if n := attempts.Load(); resp.StatusCode != http.StatusOK || string(got) != "ok" || n != 2 {
		t.Fatalf("got %d %q after %d attempts, want 200 \"ok\" after 2", resp.StatusCode, got, n)
	}
}
