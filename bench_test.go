package llmthinking

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
)

// discard is a ResponseWriter that keeps nothing, so benchmarks measure the
// handler, not a recorder.
type discard struct{ header http.Header }

func (d *discard) Header() http.Header         { return d.header }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

// quietHandler is a handler logging as production does: info level, here
// into io.Discard.
func quietHandler(b *testing.B) *Handler {
	h := newTestHandler(b, "anthropic")
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	h.logger = zap.New(zapcore.NewCore(enc, zapcore.AddSync(io.Discard), zap.InfoLevel))
	return h
}

// longSession is the captured --continue request grown to size bytes.
func longSession(b *testing.B, size int) []byte {
	b.Helper()
	raw, err := os.ReadFile("testdata/claude-code-2.1.328/capture-3-continue-replays-thinking.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		b.Fatal(err)
	}
	body, err := claudecode.GrowHistory(compact.Bytes(), size)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// benchRequest builds a request for body, as Caddy hands it to the handler.
func benchRequest(body []byte) *http.Request {
	r, _ := http.NewRequest("POST", "/v1/messages?beta=true", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("X-Claude-Code-Session-Id", "bench")
	return r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
}

// drain reads and closes the request body, as reverse_proxy's transport
// does when it sends the request upstream.
var drain = caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
	_, err := io.Copy(io.Discard, r.Body)
	r.Body.Close()
	return err
})

// benchmarkRequest serves body again and again, its blocks known as
// produced by origin; the target is "anthropic".
func benchmarkRequest(b *testing.B, size int, origin string) {
	benchmarkSwitched(b, size, func(int, int) string { return origin })
}

// benchmarkSwitched serves body again and again, block i of n known as
// produced by origin(i, n); the target is "anthropic".
func benchmarkSwitched(b *testing.B, size int, origin func(i, n int) string) {
	body := longSession(b, size)
	h := quietHandler(b)
	req, err := thinking.Parse(body)
	if err != nil {
		b.Fatal(err)
	}
	for i, blk := range req.Blocks() {
		h.policy.Registry.Observe(0, origin(i, len(req.Blocks())), blk.Key)
	}
	req.Release()
	w := &discard{header: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := h.ServeHTTP(w, benchRequest(body), drain); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPassThrough256KiB is the baseline: the same request and drain,
// without llm_thinking. Subtract it from the benchmarks below.
func BenchmarkPassThrough256KiB(b *testing.B) {
	body := longSession(b, 256<<10)
	w := &discard{header: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := drain.ServeHTTP(w, benchRequest(body)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServeHTTP256KiBNothingToChange is the steady state of a long
// session: every replayed block belongs to the target.
func BenchmarkServeHTTP256KiBNothingToChange(b *testing.B) { benchmarkRequest(b, 256<<10, "anthropic") }

// BenchmarkServeHTTP256KiBAfterSwitch strips every block: they came from
// another backend.
func BenchmarkServeHTTP256KiBAfterSwitch(b *testing.B) { benchmarkRequest(b, 256<<10, "glm") }

// BenchmarkServeHTTP1MiBAfterSwitch is a very long session switched to
// another backend: every block is stripped, on every request.
func BenchmarkServeHTTP1MiBAfterSwitch(b *testing.B) { benchmarkRequest(b, 1<<20, "glm") }

// BenchmarkServeHTTP1MiBTenForeign is the overhead tool's load after a
// switch: 10 blocks of the history, spread through it, came from another
// backend and are stripped.
func BenchmarkServeHTTP1MiBTenForeign(b *testing.B) {
	benchmarkSwitched(b, 1<<20, func(i, n int) string {
		for k := range 10 {
			if i == (2*k+1)*n/20 {
				return "glm"
			}
		}
		return "anthropic"
	})
}

// BenchmarkServeHTTP1MiBNothingToChange is a very long session.
func BenchmarkServeHTTP1MiBNothingToChange(b *testing.B) { benchmarkRequest(b, 1<<20, "anthropic") }

// sseEvents is a realistic reply: a thinking block in 40 deltas with its
// signature, a text block in 400 deltas, framed as the API frames them.
func sseEvents() [][]byte {
	return replyShape{
		message:        `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}`,
		thinkingDeltas: 40, thinking: `Let me think about \"this\" step\nby step. `,
		signature:  strings.Repeat("EqQBCkgIARABGAIiQL", 20),
		textDeltas: 400, text: "Here is some more of the answer, ",
		outputTokens: 500,
	}.events()
}

// replyShape is a streamed answer of a thinking block and a text block,
// each of one delta repeated: message_start with message, a ping when
// ping is set, thinkingDeltas of thinking (JSON string contents) and the
// signature, textDeltas of text, message_delta counting outputTokens,
// message_stop.
type replyShape struct {
	message                  string
	ping                     bool
	thinking, signature      string
	thinkingDeltas           int
	text                     string
	textDeltas, outputTokens int
}

// events frames the reply as the API does, an event a slice.
func (r replyShape) events() [][]byte {
	ev := func(name, data string) []byte { return []byte("event: " + name + "\ndata: " + data + "\n\n") }
	events := [][]byte{ev("message_start", `{"type":"message_start","message":`+r.message+`}`)}
	if r.ping {
		events = append(events, ev("ping", `{"type":"ping"}`))
	}
	events = append(events, ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`))
	for range r.thinkingDeltas {
		events = append(events, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"`+r.thinking+`"}}`))
	}
	events = append(events,
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"`+r.signature+`"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`))
	for range r.textDeltas {
		events = append(events, ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"`+r.text+`"}}`))
	}
	return append(events,
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":`+strconv.Itoa(r.outputTokens)+`}}`),
		ev("message_stop", `{"type":"message_stop"}`))
}

// benchmarkStream writes the reply event by event through next, as
// reverse_proxy does, and reports the cost per event.
func benchmarkStream(b *testing.B, serve func(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error) {
	events := sseEvents()
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if err := drain.ServeHTTP(w, r); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		for _, e := range events {
			if _, err := w.Write(e); err != nil {
				return err
			}
		}
		return nil
	})
	body := []byte(`{"messages":[{"role":"user","content":"hi"}],"stream":true,"thinking":{"type":"enabled","budget_tokens":2000}}`)
	b.ReportAllocs()
	for b.Loop() {
		w := &discard{header: http.Header{}}
		if err := serve(w, benchRequest(body), next); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}

// BenchmarkPassThroughSSE is the baseline for BenchmarkObserveSSE.
func BenchmarkPassThroughSSE(b *testing.B) {
	benchmarkStream(b, passThrough)
}

// BenchmarkObserveSSE streams a reply through the handler.
func BenchmarkObserveSSE(b *testing.B) {
	benchmarkStream(b, quietHandler(b).ServeHTTP)
}

// BenchmarkServeHTTP1MiBNoSession serves a long session of a client that
// names no session, again and again, whose blocks the registry (full, as
// a busy gateway's) never saw: its thread is recognized from its history
// alone, and every block is looked for.
func BenchmarkServeHTTP1MiBNoSession(b *testing.B) {
	body := longSession(b, 1<<20)
	at := bytes.Index(body, []byte(`,"metadata":`))
	end := bytes.Index(body[at+1:], []byte(`},`))
	body = append(body[:at:at], body[at+1+end+1:]...) // no metadata.user_id either
	h := quietHandler(b)
	for i := range 100_000 {
		var k block.Key
		binary.LittleEndian.PutUint64(k[:], uint64(i)*0x9E3779B97F4A7C15)
		h.policy.Registry.Observe(0, "anthropic", k)
	}
	w := &discard{header: http.Header{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := benchRequest(body)
		r.Header.Del("X-Claude-Code-Session-Id")
		if err := h.ServeHTTP(w, r, drain); err != nil {
			b.Fatal(err)
		}
	}
}

// fixedCostBody is a small request as an SDK writes one: its system prompt
// and tools before the messages, one thinking block in the history.
func fixedCostBody() []byte {
	tool := `{"name":"Tool","description":"Runs it.","input_schema":{"type":"object","properties":{"command":{"type":"string","description":"The command"}},"required":["command"]}}`
	return []byte(`{"model":"claude-sonnet-4-5-20250929","max_tokens":32000,"stream":false,"thinking":{"type":"enabled","budget_tokens":10000},` +
		`"system":[{"type":"text","text":"` + strings.Repeat("You are a careful assistant. ", 50) + `"}],` +
		`"tools":[` + strings.Repeat(tool+",", 11) + tool + `],` +
		`"messages":[{"role":"user","content":[{"type":"text","text":"Fix the tests."}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"I should read them first.","signature":"` + strings.Repeat("EqQBCkgIARAB", 30) + `"},{"type":"text","text":"Reading."}]},` +
		`{"role":"user","content":[{"type":"text","text":"Go on."}]}],"metadata":{"user_id":"bench"}}`)
}

// fixedCostAnswer is a whole JSON answer with a thinking block, as the
// whole-process bench's upstream sends it.
var fixedCostAnswer = []byte(`{"id":"msg_01BenchMockReply000000000","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",` +
	`"content":[{"type":"thinking","thinking":"The user wants a short answer. I will reply briefly and precisely.","signature":"EqQBCkgIARABGAIiQL3fQ1p7k2mZ9x0bench0signature0AAAA=="},` +
	`{"type":"text","text":"Done. The change is in place and the tests pass."}],"stop_reason":"end_turn","stop_sequence":null,` +
	`"usage":{"input_tokens":1000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":42}}`)

// BenchmarkServeHTTPFixedCost is what every request costs whatever its
// size: a 5 KB body, planned, passed on, and its JSON answer read and
// registered. Subtract BenchmarkPassThroughFixedCost.
func BenchmarkServeHTTPFixedCost(b *testing.B) { benchmarkFixedCost(b, true) }

// BenchmarkPassThroughFixedCost is BenchmarkServeHTTPFixedCost's load
// without llm_thinking.
func BenchmarkPassThroughFixedCost(b *testing.B) { benchmarkFixedCost(b, false) }

func benchmarkFixedCost(b *testing.B, module bool) {
	body := fixedCostBody()
	h := quietHandler(b)
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		if err := drain.ServeHTTP(w, r); err != nil {
			return err
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, err := w.Write(fixedCostAnswer)
		return err
	})
	b.ReportAllocs()
	for b.Loop() {
		w := &discard{header: http.Header{}}
		r := benchRequest(body)
		var err error
		if module {
			err = h.ServeHTTP(w, r, next)
		} else {
			err = next.ServeHTTP(w, r)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
