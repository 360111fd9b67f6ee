package llmthinking

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadBody(t *testing.T) {
	content := strings.Repeat("x", 100)
	read := func(r *http.Request, limit int64) (string, error) {
		b, err := readBody(r, limit)
		if err != nil {
			return "", err
		}
		defer b.release()
		return string(b.bytes()), nil
	}

	got, err := read(httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content)), 100)
	if err != nil || got != content {
		t.Fatalf("body within the limit: %q, %v", got, err)
	}
	if _, err := read(httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content)), 99); !errors.Is(err, errBodyTooLarge) {
		t.Fatalf("declared length over the limit: err = %v", err)
	}

	// A chunked body declares no length: the limit applies while reading.
	chunked := func() *http.Request {
		r := httptest.NewRequest("POST", "/v1/messages", io.MultiReader(strings.NewReader(content)))
		r.ContentLength = -1
		return r
	}
	if _, err := read(chunked(), 99); !errors.Is(err, errBodyTooLarge) {
		t.Fatalf("chunked body over the limit: err = %v", err)
	}
	if got, err := read(chunked(), 100); err != nil || got != content {
		t.Fatalf("chunked body within the limit: %q, %v", got, err)
	}

	// A client that stops sending early is an error, not a short body.
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content[:50]))
	r.ContentLength = 100
	if _, err := read(r, 1000); err == nil || errors.Is(err, errBodyTooLarge) {
		t.Fatalf("truncated body: err = %v", err)
	}
}

// TestBodyBufferOutlivesTheHandler checks the reference counting that makes
// recycling body buffers safe: a reader the transport has not closed yet
// (an upstream that answered early) keeps the bytes, and so does one opened
// through GetBody for a retry.
func TestBodyBufferOutlivesTheHandler(t *testing.T) {
	b, err := readBody(httptest.NewRequest("POST", "/v1/messages", strings.NewReader("original")), 100)
	if err != nil {
		t.Fatal(err)
	}
	first := b.reader()
	retry := b.reader()
	first.Close()
	first.Close() // a second Close must not release twice
	b.release()   // the handler returns

	// Reuse the pool hard: a prematurely recycled buffer would be
	// overwritten here.
	for range 100 {
		other, err := readBody(httptest.NewRequest("POST", "/v1/messages", strings.NewReader("clobbered")), 100)
		if err != nil {
			t.Fatal(err)
		}
		other.release()
	}
	got, err := io.ReadAll(retry)
	if err != nil || string(got) != "original" {
		t.Fatalf("retry read %q, %v; want the original body", got, err)
	}
	if n := b.refs.Load(); n != 1 {
		t.Fatalf("references = %d, want 1 (the open retry reader)", n)
	}
	retry.Close()
	if n := b.refs.Load(); n != 0 {
		t.Fatalf("references = %d after every reader closed", n)
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
