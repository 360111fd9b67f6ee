package budget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/gctest"
)

// testTicket returns the account of one request with a budget of its own,
// of limit bytes.
func testTicket(limit int64) *Ticket {
	return New(limit).Ticket(context.Background(), time.Second)
}

// checkNothingInUse fails the test when tk's budget has room in use after
// what the test did.
func checkNothingInUse(t *testing.T, tk *Ticket, after string) {
	t.Helper()
	if s := tk.b.Stats(); s.InUse != 0 {
		t.Fatalf("%d bytes in use after %s", s.InUse, after)
	}
}

// readBody reads content as a request's body of at most 100 bytes on tk,
// failing the test when it cannot.
func readBody(t *testing.T, tk *Ticket, content string) *Body {
	t.Helper()
	b, err := ReadBody(httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content)), 100, tk)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadBody(t *testing.T) {
	content := strings.Repeat("x", 100)
	read := func(r *http.Request, limit int64) (string, error) {
		tk := testTicket(16 << 20)
		b, err := ReadBody(r, limit, tk)
		if err != nil {
			if s := tk.b.Stats(); s.InUse != 0 {
				t.Errorf("a body refused holds %d bytes", s.InUse)
			}
			return "", err
		}
		defer b.Close()
		return string(b.Bytes()), nil
	}

	got, err := read(httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content)), 100)
	if err != nil || got != content {
		t.Fatalf("body within the limit: %q, %v", got, err)
	}
	if _, err := read(httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content)), 99); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("declared length over the limit: err = %v", err)
	}

	// A chunked body declares no length: the limit applies while reading.
	chunked := func() *http.Request {
		r := httptest.NewRequest("POST", "/v1/messages", io.MultiReader(strings.NewReader(content)))
		r.ContentLength = -1
		return r
	}
	if _, err := read(chunked(), 99); !errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("chunked body over the limit: err = %v", err)
	}
	if got, err := read(chunked(), 100); err != nil || got != content {
		t.Fatalf("chunked body within the limit: %q, %v", got, err)
	}

	// A client that stops sending early is an error, not a short body.
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content[:50]))
	r.ContentLength = 100
	if _, err := read(r, 1000); err == nil || errors.Is(err, ErrBodyTooLarge) {
		t.Fatalf("truncated body: err = %v", err)
	}
}

// trickle is a client sending its body a piece at a time, when the test
// says so: Read tells asked once it is called, then waits for next.
type trickle struct {
	piece       []byte
	asked, next chan struct{}
	sent        atomic.Int64
}

func (tr *trickle) Read(p []byte) (int, error) {
	tr.asked <- struct{}{}
	if _, ok := <-tr.next; !ok {
		return 0, io.EOF
	}
	n := copy(p, tr.piece)
	tr.sent.Add(int64(n))
	return n, nil
}

// TestReadBodyHoldsWhatArrived checks that a body declaring 8 MiB holds
// about what it sent (at most twice that), and that the growth gives back
// every buffer it outgrew.
func TestReadBodyHoldsWhatArrived(t *testing.T) {
	tk := testTicket(64 << 20)
	tr := &trickle{piece: make([]byte, 10<<10), asked: make(chan struct{}), next: make(chan struct{})}
	r := httptest.NewRequest("POST", "/v1/messages", tr)
	r.ContentLength = 8 << 20
	done := make(chan error, 1)
	go func() {
		b, err := ReadBody(r, 32<<20, tk)
		if err == nil {
			b.Close()
		}
		done <- err
	}()
	for range 12 {
		<-tr.asked
		tr.next <- struct{}{}
	}
	<-tr.asked // the reader waits for more, its buffer grown as it needed
	sent, inUse := tr.sent.Load(), tk.b.Stats().InUse
	if inUse < sent || inUse > 2*sent {
		t.Errorf("after %d bytes of an 8 MiB body, %d bytes in use", sent, inUse)
	}
	close(tr.next)
	if err := <-done; err == nil {
		t.Fatal("a body shorter than its length was read")
	}
	if s := tk.b.Stats(); s.InUse != 0 {
		t.Fatalf("%d bytes still in use after the body was refused", s.InUse)
	}
}

func TestReadBodyBeyondTheBudget(t *testing.T) {
	tk := testTicket(1 << 20)
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(strings.Repeat("x", 600<<10)))
	if _, err := ReadBody(r, 32<<20, tk); !errors.Is(err, ErrBeyondBudget) {
		t.Fatalf("a declared body over half the budget: err = %v", err)
	}
	r = httptest.NewRequest("POST", "/v1/messages", io.MultiReader(strings.NewReader(strings.Repeat("x", 2<<20))))
	r.ContentLength = -1
	if _, err := ReadBody(r, 32<<20, tk); !errors.Is(err, ErrBeyondBudget) {
		t.Fatalf("a chunked body over the budget: err = %v", err)
	}
	checkNothingInUse(t, tk, "both were refused")
}

// TestBodyBufferOutlivesTheHandler checks the reference counting that makes
// recycling body buffers safe: a reader the transport has not closed yet
// (an upstream that answered early) keeps the bytes, and so does one opened
// through GetBody for a retry.
func TestBodyBufferOutlivesTheHandler(t *testing.T) {
	tk := testTicket(16 << 20)
	b := readBody(t, tk, "original")
	first := b.Reader()
	retry := b.Reader()
	first.Close()
	first.Close() // a second Close must not release twice
	b.Close()     // the handler returns
	b.Close()     // and must not release twice either

	// Reuse the cache hard: a prematurely recycled buffer would be
	// overwritten here.
	for range 100 {
		other := readBody(t, tk, "clobbered")
		other.Close()
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
	checkNothingInUse(t, tk, "every reference went")
}

// TestUnclosedReaderGivesItsRoomBack: a reader nobody closes (a route that
// never proxies) gives the body's room back once Go collects it.
func TestUnclosedReaderGivesItsRoomBack(t *testing.T) {
	tk := testTicket(16 << 20)
	b := readBody(t, tk, "never sent on")
	b.Reader() // dropped unclosed
	b.Close()
	if s := tk.b.Stats(); s.InUse == 0 {
		t.Fatal("a body whose reader is open holds nothing")
	}
	gctest.Until(t, func() bool { return tk.b.Stats().InUse == 0 },
		func() string {
			return fmt.Sprintf("%d bytes still in use 10s after the reader was dropped", tk.b.Stats().InUse)
		})
	if s := tk.b.Stats(); s.Collected != 1 {
		t.Fatalf("stats %+v, want the reader counted as collected", s)
	}
}

// TestCopyRoom: a copy of a cacheable size gets a buffer, a larger one
// room reserved, which the copy the writer allocates takes over; room not
// used goes back.
func TestCopyRoom(t *testing.T) {
	tk := testTicket(64 << 20)
	small, err := CopyRoom(tk, 100<<10)
	if err != nil || cap(small.Room()) < 100<<10 {
		t.Fatalf("CopyRoom(100 KiB): cap %d, %v", cap(small.Room()), err)
	}
	small.Set(append(small.Room(), "rewritten"...))
	if string(small.Bytes()) != "rewritten" {
		t.Fatalf("body %q", small.Bytes())
	}
	large, err := CopyRoom(tk, 6<<20)
	if err != nil || large.Room() != nil || tk.b.Stats().InUse != 128<<10+6<<20 {
		t.Fatalf("CopyRoom(6 MiB): room %d, %v, in use %d", cap(large.Room()), err, tk.b.Stats().InUse)
	}
	copied := make([]byte, 5<<20)
	large.Set(copied)
	if s := tk.b.Stats(); s.InUse != 128<<10+5<<20 {
		t.Fatalf("the adopted 5 MiB copy: %d bytes in use", s.InUse)
	}
	unused, err := CopyRoom(tk, 6<<20)
	if err != nil {
		t.Fatal(err)
	}
	unused.Close()
	small.Close()
	large.Close()
	checkNothingInUse(t, tk, "every copy was let go")
}

// TestAClosedReaderLetsTheBytesBeCollected: a request outlives its body's
// reading (an http.Response keeps its Request, and so its Body): once
// closed, the reader must not keep a buffer given back from being
// collected, or memory the budget no longer counts would stay in use.
func TestAClosedReaderLetsTheBytesBeCollected(t *testing.T) {
	tk := testTicket(64 << 20)
	b, err := CopyRoom(tk, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.Extend(nil, 8<<20) // too large to be cached: let go once given back
	if err != nil {
		t.Fatal(err)
	}
	b.Set(append(p, "translated"...))
	bytes := weak.Make(unsafe.SliceData(p))
	p = nil
	r := b.Reader()
	b.Close()
	if _, err := r.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if s := tk.b.Stats(); s.Held != 0 {
		t.Fatalf("%d bytes held once the last reader closed", s.Held)
	}
	gctest.Until(t, func() bool { return bytes.Value() == nil },
		func() string { return "the bytes of a closed reader were not collected in 10s" })
	runtime.KeepAlive(r)
}

// TestBodyReaderWritesInOneWrite: io.Copy takes the whole body in one
// write (WriteTo), keeps the bytes while it writes, and the reader reads
// nothing more after.
func TestBodyReaderWritesInOneWrite(t *testing.T) {
	tk := testTicket(16 << 20)
	b := readBody(t, tk, "a whole body")
	r := b.Reader()
	b.Close()
	w := &writes{}
	if n, err := io.Copy(w, r); err != nil || n != 12 || len(w.calls) != 1 || w.calls[0] != "a whole body" {
		t.Fatalf("copied %d, %v, in writes %q", n, err, w.calls)
	}
	if n, _ := r.Read(make([]byte, 4)); n != 0 {
		t.Fatalf("read %d bytes after the body was written", n)
	}
	r.Close()
	checkNothingInUse(t, tk, "the reader closed")
}

// writes records each write it gets.
type writes struct{ calls []string }

func (w *writes) Write(p []byte) (int, error) {
	w.calls = append(w.calls, string(p))
	return len(p), nil
}
