package budget

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// carriedRequest reads a body as the handler does and carries it on.
func carriedRequest(t *testing.T, tk *Ticket, content string) (*Body, *http.Request, *Carried) {
	t.Helper()
	r := httptest.NewRequest("POST", "/v1/messages", strings.NewReader(content))
	b, err := ReadBody(r, 1<<20, tk)
	if err != nil {
		t.Fatal(err)
	}
	return b, r, Carry(r, tk, b)
}

// TestBorrowTakesTheCarriedBytes: a transport borrows the very bytes the
// handler read, not a copy, for as long as it holds them; they count once,
// and every byte is given back when the last holder lets go.
func TestBorrowTakesTheCarriedBytes(t *testing.T) {
	tk := testTicket(16 << 20)
	in, req, c := carriedRequest(t, tk, "hello")
	if c.Ticket() != tk {
		t.Fatal("the account was not carried")
	}
	held := tk.b.Stats().InUse
	b, ok := c.Borrow(req)
	if !ok || string(b.Bytes()) != "hello" || &b.Bytes()[0] != &in.Bytes()[0] {
		t.Fatalf("borrowed %q, %v: want the handler's bytes", b.Bytes(), ok)
	}
	if s := tk.b.Stats(); s.InUse != held {
		t.Fatalf("borrowing took %d bytes more", s.InUse-held)
	}
	again, ok := c.Borrow(req) // reverse_proxy retries
	if !ok || string(again.Bytes()) != "hello" {
		t.Fatal("a retry could not borrow the body again")
	}
	r := b.Reader()
	in.Close() // the handler is done; the borrowers and the reader are not
	b.Close()
	again.Close()
	if got, _ := io.ReadAll(r); string(got) != "hello" || tk.b.Stats().InUse != held {
		t.Fatalf("read %q through a borrowed body's reader, %d bytes in use", got, tk.b.Stats().InUse)
	}
	r.Close()
	checkNothingInUse(t, tk, "every holder let go")
}

// TestBorrowRefusesABodyAlreadyRead: once something read the carried
// body, or replaced it, the transport reads the body it gets.
func TestBorrowRefusesABodyAlreadyRead(t *testing.T) {
	tk := testTicket(16 << 20)
	in, req, c := carriedRequest(t, tk, "hello")
	defer in.Close()
	var one [1]byte
	req.Body.Read(one[:])
	if _, ok := c.Borrow(req); ok {
		t.Fatal("borrowed a body partly read")
	}
	in2, req2, c2 := carriedRequest(t, tk, "hello")
	defer in2.Close()
	req2.Body = io.NopCloser(strings.NewReader("other"))
	req2.ContentLength = 6
	if _, ok := c2.Borrow(req2); ok {
		t.Fatal("borrowed a body of another length")
	}
	var nobody *Carried
	if _, ok := nobody.Borrow(httptest.NewRequest("POST", "/", strings.NewReader("x"))); ok || nobody.Ticket() != nil {
		t.Fatal("borrowed a body nobody carried")
	}
}

// TestExtendKeepsTheCopyCounted: a copy written as it grows is in the
// budget all along, at least doubling, and Set makes it the body.
func TestExtendKeepsTheCopyCounted(t *testing.T) {
	tk := testTicket(16 << 20)
	b, err := CopyRoom(tk, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := b.Room()
	for i := range 100_000 {
		if cap(p)-len(p) < 1 {
			before := cap(p)
			if p, err = b.Extend(p, 1); err != nil {
				t.Fatal(err)
			}
			if cap(p) < 2*before {
				t.Fatalf("grew from %d to %d", before, cap(p))
			}
			if s := tk.b.Stats(); s.InUse < int64(cap(p)) {
				t.Fatalf("a buffer of %d counted as %d", cap(p), s.InUse)
			}
		}
		p = append(p, byte('a'+i%26))
	}
	b.Set(p)
	if len(b.Bytes()) != 100_000 || b.Bytes()[99_999] != byte('a'+99_999%26) {
		t.Fatal("Set lost what was written")
	}
	b.Close()
	checkNothingInUse(t, tk, "Close")
}

// TestWaitingAnswerWaitsForRoom: an answer a transport must hold waits
// for room, where one the handler observes fails at once.
func TestWaitingAnswerWaitsForRoom(t *testing.T) {
	tk := New(MinLimit).Ticket(context.Background(), time.Minute)
	hog := tk.b.Ticket(context.Background(), 0)
	fill(t, hog, MinLimit)
	if _, err := NewAnswer(tk, MinLimit, 512<<10); err != ErrNoRoom {
		t.Fatalf("an observed answer without room: %v", err)
	}
	waiting := make(chan error, 1)
	go func() {
		a, err := WaitingAnswer(tk, MinLimit, 512<<10)
		if err == nil {
			a.Release()
		}
		waiting <- err
	}()
	awaitWaiters(t, tk.b, 1)
	hog.Unreserve(MinLimit)
	if err := <-waiting; err != nil {
		t.Fatalf("got no room once it came: %v", err)
	}
}
