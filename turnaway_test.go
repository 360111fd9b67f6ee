package llmthinking

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

func TestRefuseBodyWritesTheAnthropicEnvelope(t *testing.T) {
	h := &Handler{MaxBodySize: 1024, MemoryWait: 3e9, logger: zap.NewNop()}
	tk := budget.New(64<<20).Ticket(context.Background(), time.Second)
	for _, c := range []struct {
		err    error
		status int
		body   string
	}{
		{budget.ErrBodyTooLarge, http.StatusRequestEntityTooLarge,
			`{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking max_body_size 1024)."}}`},
		{budget.ErrBeyondBudget, http.StatusRequestEntityTooLarge,
			`{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (llm_thinking memory_budget 67108864 holds bodies up to 29360128 bytes)."}}`},
		{budget.ErrTooManyParts, http.StatusRequestEntityTooLarge,
			`{"type":"error","error":{"type":"request_too_large","message":"Request holds more messages and content blocks than llm_thinking reads in a body of its size (their structure may take twice the body's bytes and 1 MiB)."}}`},
	} {
		w := httptest.NewRecorder()
		if err := h.turnAway(w, nil, tk, c.err); err != nil {
			t.Fatal(err)
		}
		if w.Code != c.status || w.Body.String() != c.body || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%v: got %d %q %q", c.err, w.Code, w.Header().Get("Content-Type"), w.Body.String())
		}
	}
}
