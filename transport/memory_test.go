package transport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/handoff"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
)

// chatAnswer is a chat-completions answer of text.
const chatAnswer = `{"id":"c1","choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":2}}`

// bigRequest is a Messages request of about size bytes of text.
func bigRequest(size int) string {
	return `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"` + strings.Repeat("x", size) + `"}]}`
}

// inUseAt is an upstream that answers a chat-completions answer and
// records what the process's budget held while it read the request.
type inUseAt struct {
	bodies []string
	inUse  []int64
}

func (u *inUseAt) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	u.bodies = append(u.bodies, string(b))
	u.inUse = append(u.inUse, budget.Process.Stats().InUse)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, chatAnswer)
}

// TestTheTransportBorrowsTheHandlersBody: behind llm_thinking, which
// carries the body it read and its account, the transport reads none of
// the body again, counts its translation in that account, and every byte
// comes back once the answer is read.
func TestTheTransportBorrowsTheHandlersBody(t *testing.T) {
	o, up, url := openaiTo(t)
	b := budget.New(64 << 20)
	defer b.Close()
	tk := b.Ticket(context.Background(), time.Second)
	content := bigRequest(1 << 20)
	r := httptest.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(content))
	in, err := budget.ReadBody(r, 8<<20, tk)
	if err != nil {
		t.Fatal(err)
	}
	r = handoff.Pass(r, handoff.Request{}, tk, in)
	carried := r.Body.(interface{ Len() int })
	r.RequestURI = ""
	resp, err := o.RoundTrip(r)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(answer), `"text":"hi"`) {
		t.Fatalf("%d %s", resp.StatusCode, answer)
	}
	if carried.Len() != len(content) {
		t.Fatalf("the transport read %d bytes of the carried body", len(content)-carried.Len())
	}
	if len(up.bodies) != 1 || !strings.Contains(up.bodies[0], strings.Repeat("x", 1<<20)) {
		t.Fatal("the upstream did not get the translated body")
	}
	// While the upstream read it, the translation was in the handler's
	// account, beside the body.
	if s := b.Stats(); s.Peak < int64(len(content)+len(up.bodies[0])) {
		t.Fatalf("peak %d: the translation of %d bytes was not counted", s.Peak, len(up.bodies[0]))
	}
	in.Close()
	if s := b.Stats(); s.InUse != 0 {
		t.Fatalf("%d bytes in use once the request is done", s.InUse)
	}
}

// TestTheTransportAloneCountsWhatItHolds: without llm_thinking, the body
// read and its translation are in the process's budget while the upstream
// reads, and given back after.
func TestTheTransportAloneCountsWhatItHolds(t *testing.T) {
	o, up, url := openaiTo(t)
	before := budget.Process.Stats().InUse
	content := bigRequest(1 << 20)
	resp, answer := post(t, o, url+"/v1/messages", content)
	if resp.StatusCode != 200 || !strings.Contains(answer, `"text":"hi"`) {
		t.Fatalf("%d %s", resp.StatusCode, answer)
	}
	// The body read is let go once translated: the translation is what
	// the upstream reads.
	if up.inUse[0]-before < int64(len(up.bodies[0])) {
		t.Fatalf("%d bytes in use while the upstream read a translation of %d", up.inUse[0]-before, len(up.bodies[0]))
	}
	if got := budget.Process.Stats().InUse; got != before {
		t.Fatalf("%d bytes in use after the answer, %d before", got, before)
	}
}

// openaiTo returns a transport openai, provisioned, and the upstream it
// sends to, at url, closed once t ends.
func openaiTo(t *testing.T) (o *OpenAI, up *inUseAt, url string) {
	up = &inUseAt{}
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	o = &OpenAI{}
	provisioned(t, o)
	return o, up, srv.URL
}

// squeezeProcess sets the process's budget to its least and fills it, and
// returns what gives it back.
func squeezeProcess(t *testing.T) func() {
	t.Helper()
	app := new(int)
	b := budget.Process.Configure(app, budget.Settings{Size: budget.MinLimit})
	hog := b.Ticket(context.Background(), 0)
	hog.Finishing() // which may fill the whole budget
	buf, err := hog.Buffer(budget.MinLimit-4<<10, budget.MinLimit-4<<10, false)
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		hog.Put(buf)
		budget.Process.Leave(app)
	}
}

// TestTheTransportWithoutRoomAnswers529: a request that finds no room
// within its wait gets the API's overloaded_error with Retry-After, and
// nothing reaches the upstream; count_tokens too.
func TestTheTransportWithoutRoomAnswers529(t *testing.T) {
	o, up, url := openaiTo(t)
	o.memory.wait = 20 * time.Millisecond
	free := squeezeProcess(t)
	defer free()
	overloaded := budget.Process.Stats().Overloaded
	for _, path := range []string{"/v1/messages", "/v1/messages/count_tokens"} {
		resp, body := post(t, o, url+path, bigRequest(64<<10))
		want := `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded: the gateway's memory for requests is in use (llm_thinking memory_budget); retry later."}}`
		if resp.StatusCode != 529 || body != want || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("%s: %d %v %s", path, resp.StatusCode, resp.Header, body)
		}
	}
	if len(up.bodies) != 0 {
		t.Fatal("a request reached the upstream")
	}
	if got := budget.Process.Stats().Overloaded - overloaded; got != 2 {
		t.Fatalf("%d requests counted overloaded, want 2", got)
	}
}

// TestTheTransportRefusesABodyBeyondItsBound: a body over what the
// transport reads is refused with 413 before it is read.
func TestTheTransportRefusesABodyBeyondItsBound(t *testing.T) {
	o, up, url := openaiTo(t)
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader("{}"))
	req.ContentLength = maxRequestBody + 1
	resp, err := o.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	want := `{"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum allowed number of bytes (67108864, which the transport reads)."}}`
	if resp.StatusCode != 413 || string(body) != want || len(up.bodies) != 0 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}
