package handoff

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// TestPassCarriesTheHandOff: the request passed on reads the body the
// handler read, and a transport finds the hand-off, the account and the
// very bytes in its context; the handler's own request is left as it was.
func TestPassCarriesTheHandOff(t *testing.T) {
	b := budget.New(budget.MinLimit)
	defer b.Close()
	tk := b.Ticket(context.Background(), time.Second)
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(`{"a":1}`))
	body, err := budget.ReadBody(r, 1<<20, tk)
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	original := r.Body
	want := Request{ThinkingOff: []byte(`{"type":"enabled"}`), Facts: registry.Capability(1)}
	passed := Pass(r, want, tk, body)
	if r.Body != original || From(r.Context()).Memory != nil {
		t.Fatal("Pass changed the handler's request")
	}
	got := From(passed.Context())
	if string(got.ThinkingOff) != string(want.ThinkingOff) || got.Facts != want.Facts || got.Memory.Ticket() != tk {
		t.Fatalf("the transport found %+v", got)
	}
	borrowed, ok := got.Memory.Borrow(passed)
	if !ok || &borrowed.Bytes()[0] != &body.Bytes()[0] {
		t.Fatal("the transport could not borrow the handler's bytes")
	}
	borrowed.Close()
	again, _ := passed.GetBody()
	if data, _ := io.ReadAll(again); string(data) != `{"a":1}` {
		t.Fatalf("GetBody reads %q", data)
	}
}

// TestFromWithoutHandOff: a request nobody passed on (no llm_thinking in
// front of the transport) has the zero hand-off, and nothing to borrow.
func TestFromWithoutHandOff(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader("x"))
	h := From(r.Context())
	if h.ThinkingOff != nil || h.Facts != 0 || h.Memory.Ticket() != nil {
		t.Fatalf("got %+v", h)
	}
	if _, ok := h.Memory.Borrow(r); ok {
		t.Fatal("borrowed a body nobody carried")
	}
	passed := Pass(r, Request{Facts: 2}, nil, nil)
	if passed.Body != r.Body || From(passed.Context()).Facts != 2 {
		t.Fatal("a hand-off without a body changed the body")
	}
}
