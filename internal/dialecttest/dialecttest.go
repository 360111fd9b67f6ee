// Package dialecttest holds what the tests of the dialects (chat
// completions, Gemini, Responses) share: the check that a translation is
// written only into the memory it asked for, over random requests and
// fuzzed ones, and the benchmarks of a translated request and of a stream
// read as a transport reads it. Test code only: each dialect says how it
// translates, this package what is checked and measured. The random
// requests are the caller's (claudecode.RandomRequest): a package only
// tests import imports no other such package.
package dialecttest

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// Grow is the Grow of a dialect's request options (see jsonout.Writer).
type Grow = func(p []byte, n int) ([]byte, error)

// Translate translates a Messages request body with grow, returning the
// translated body.
type Translate = func(body []byte, grow Grow) ([]byte, error)

// room is a Grow that gives exactly the room asked for and remembers the
// last it gave, so that a translation can be told to be written there.
type room struct{ last []byte }

func (r *room) grow(p []byte, n int) ([]byte, error) {
	r.last = make([]byte, len(p), len(p)+n)
	copy(r.last, p)
	return r.last, nil
}

// check fails t unless out, translated from body, is valid JSON written
// into the last room r gave.
func (r *room) check(t testing.TB, body, out []byte) {
	t.Helper()
	if unsafe.SliceData(out) != unsafe.SliceData(r.last) {
		t.Fatalf("wrote past the room it asked for out of %q", body)
	}
	if !json.Valid(out) {
		t.Fatalf("invalid JSON out of %q: %s", body, out)
	}
}

// InRoom fails t unless translate, given body, writes valid JSON into the
// memory its Grow gave, asked for exactly, or fails: for fuzz targets,
// where any body may be no request.
func InRoom(t testing.TB, body []byte, translate Translate) {
	t.Helper()
	var r room
	out, err := translate(body, r.grow)
	if err != nil {
		return
	}
	r.check(t, body, out)
}

// RandomRequestsInRoom translates 20000 requests random makes (random
// ones of every shape: claudecode.RandomRequest) from the seeds given, and
// fails t unless each translates, into valid JSON written into the memory
// its Grow gave, asked for exactly: nothing is ever allocated behind the
// budget's back.
func RandomRequestsInRoom(t *testing.T, random func(*rand.Rand) []byte, seed1, seed2 uint64, translate Translate) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(seed1, seed2))
	for range 20000 {
		body := random(rnd)
		var r room
		out, err := translate(body, r.grow)
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		r.check(t, body, out)
	}
}

// Capture returns the Claude Code request of the captures the benchmarks
// translate: a session that switched models, with its tools and history.
func Capture(b *testing.B) []byte {
	b.Helper()
	_, here, _, _ := runtime.Caller(0)
	body, err := os.ReadFile(filepath.Join(filepath.Dir(here), "../../testdata/claude-code-2.1.328/capture-4-continue-model-switch-opus-4-6.json"))
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkRequest measures translate on the request of Capture, in the
// memory Go gives (a nil Grow).
func BenchmarkRequest(b *testing.B, translate Translate) {
	body := Capture(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := translate(body, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStream measures reading the upstream's stream in through a
// Reader of the Translator newStream makes, as a transport reads it.
func BenchmarkStream(b *testing.B, in []byte, newStream func() messagesapi.Translator) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := io.Copy(io.Discard, messagesapi.NewReader(bytes.NewReader(in), newStream()))
		if err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
}
