package llmthinking

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// tinyBlocks returns a request whose assistant message holds n thinking
// blocks of nineteen bytes: a body that costs far more to read than it
// weighs.
func tinyBlocks(n int) string {
	return `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[` +
		strings.Repeat(`{"type":"thinking"},`, n) + `{"type":"text","text":"x"}]},{"role":"user","content":"go"}]}`
}

// upstreamSaw records the body that reached the next handler.
func upstreamSaw(body *string) caddyhttp.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		b, err := io.ReadAll(r.Body)
		*body = string(b)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, jsonReply)
		return err
	}
}

// TestTinyBlocksGetA413: a body of two hundred thousand tiny blocks is
// refused in the API's format before its structure outgrows twice its
// size, nothing of it goes upstream, and every byte it reserved comes back.
func TestTinyBlocksGetA413(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	var saw string
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(tinyBlocks(200_000)), upstreamSaw(&saw)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusRequestEntityTooLarge || w.Body.String() != tooManyPartsBody || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("got %d %v %q", w.Code, w.Header(), w.Body.String())
	}
	if saw != "" {
		t.Fatal("the request went upstream")
	}
	if s := h.budget.Stats(); s.InUse != 0 {
		t.Fatalf("%d bytes still reserved: %+v", s.InUse, s)
	}
}

// TestTheDensestConversationIsRead: the smallest tool loops a client
// sends, ten thousand of them, are within the bound and reach the
// upstream as they came.
func TestTheDensestConversationIsRead(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	loop := `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","name":"Bash","input":{"command":"ls"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","content":"a.txt"}]}`
	body := `{"model":"m","messages":[{"role":"user","content":"hi"},` + strings.Repeat(loop+",", 10_000) + `{"role":"user","content":"go"}]}`
	var saw string
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(body), upstreamSaw(&saw)); err != nil {
		t.Fatal(err)
	}
	if w.Code != http.StatusOK || saw != body {
		t.Fatalf("got %d, upstream saw %d of %d bytes", w.Code, len(saw), len(body))
	}
}

// TestStructureWithoutRoomGetsA529: a body that fits the budget but whose
// structure finds no room waits as a body does, then gets the API's
// overloaded_error; nothing goes upstream and the room comes back.
func TestStructureWithoutRoomGetsA529(t *testing.T) {
	h := newTestHandler(t, "anthropic")
	h.budget = budget.New(budget.MinLimit)
	h.MemoryWait = caddy.Duration(20 * time.Millisecond)
	// 3,000 blocks: 60 kB of body and 1 MB of structure, within its bound
	// (1.17 MB) and beyond the room left.
	body := tinyBlocks(3000)
	free := squeeze(h.budget, 2*len(body)+64<<10)
	defer free()
	var saw string
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, request(body), upstreamSaw(&saw)); err != nil {
		t.Fatal(err)
	}
	if w.Code != statusOverloaded || w.Body.String() != overloadedBody || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("got %d %v %q", w.Code, w.Header(), w.Body.String())
	}
	if saw != "" {
		t.Fatal("the request went upstream")
	}
	free()
	free = func() {}
	if s := h.budget.Stats(); s.InUse != 0 {
		t.Fatalf("%d bytes still reserved: %+v", s.InUse, s)
	}
}
