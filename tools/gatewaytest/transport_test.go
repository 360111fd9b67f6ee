package gatewaytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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
