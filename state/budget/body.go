package budget

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ErrBodyTooLarge reports a request body over max_body_size.
var ErrBodyTooLarge = errors.New("request body exceeds max_body_size")

// Body is a request body, or a copy of one, in memory the budget counts
// for its request. The handler and every reader it hands the transport
// hold a reference; the last one gives the buffer back. An HTTP transport
// may go on reading a body after the round trip returned (an upstream that
// answers early), and may open new readers through GetBody to retry. A
// reader nobody closes (a route that never proxies the request) gives its
// reference back once Go collects it (counted in Stats.Collected).
type Body struct {
	t   *Ticket
	buf []byte
	// reserved is room taken for a copy that another package allocates
	// (see CopyRoom and set).
	reserved int64
	refs     atomic.Int32
	closed   atomic.Bool // the handler let go of its reference
	// of is the body whose bytes this one shares (see Borrow), nil when
	// the bytes are its own.
	of *Body
}

// newBody returns an empty body of the request t accounts for, whose one
// reference the handler owns.
func newBody(t *Ticket) *Body {
	b := &Body{t: t}
	b.refs.Store(1)
	return b
}

// ReadBody reads the whole request body, refusing more than limit bytes,
// taking room from the budget as the bytes arrive. A body the budget could
// never hold, with the copy it may need, is refused before it is read. The
// caller owns one reference and must call Close. The request's own body is
// left open, so that the rest of a body refused for lack of room can be
// read and dropped; the server closes it.
func ReadBody(r *http.Request, limit int64, t *Ticket) (*Body, error) {
	switch {
	case r.ContentLength > limit:
		return nil, ErrBodyTooLarge
	case r.ContentLength > t.b.MaxBody():
		return nil, ErrBeyondBudget
	}
	b := newBody(t)
	if r.Body == nil || r.Body == http.NoBody {
		return b, nil
	}
	if err := b.readFrom(r.Body, r.ContentLength, limit); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// readFrom reads src to its end, length bytes when length >= 0, at most
// limit bytes. The buffer grows as the bytes arrive, doubling: a client
// that trickles its body holds about what it sent, and one that sends a
// body long known gets a buffer of its size when one is cached.
func (b *Body) readFrom(src io.Reader, length, limit int64) error {
	end := length // the most bytes to read
	if length < 0 {
		end = limit + 1
	}
	for int64(len(b.buf)) < end {
		if len(b.buf) == cap(b.buf) {
			if err := b.grow(length, end); err != nil {
				return err
			}
		}
		n, err := src.Read(b.buf[len(b.buf):min(int64(cap(b.buf)), end)])
		b.buf = b.buf[:len(b.buf)+n]
		if err == io.EOF {
			if length >= 0 && int64(len(b.buf)) < length {
				return fmt.Errorf("reading request body: %w", io.ErrUnexpectedEOF)
			}
			break
		}
		if err != nil {
			return fmt.Errorf("reading request body: %w", err)
		}
	}
	if int64(len(b.buf)) > limit {
		return ErrBodyTooLarge
	}
	return nil
}

// grow gives the body a buffer twice as large, at most end bytes, waiting
// for room when the budget has none.
func (b *Body) grow(length, end int64) error {
	need := int(min(max(2*int64(cap(b.buf)), firstRead), end))
	want := need
	if length >= 0 {
		want = int(length)
	}
	buf, err := b.t.Grow(b.buf, want, need, true)
	if err != nil {
		return err
	}
	b.buf = buf
	return nil
}

// CopyRoom returns an empty body to write a copy of up to size bytes into
// (a rewritten or replayed request): a buffer of that size, or, for sizes
// that are never cached, room reserved for the copy the writer allocates,
// which Set then adopts. It waits for room like a body being read.
func CopyRoom(t *Ticket, size int) (*Body, error) {
	b := newBody(t)
	if size == 0 {
		return b, nil
	}
	if size <= maxCachedBuffer {
		buf, err := t.Buffer(size, size, true)
		if err != nil {
			return nil, err
		}
		b.buf = buf
		return b, nil
	}
	if err := t.Reserve(int64(size), true); err != nil {
		return nil, err
	}
	b.reserved = int64(size)
	return b, nil
}

// ReservedBody returns an empty body with n bytes of room reserved for a
// copy that another package allocates, which Set then adopts (Set(nil)
// gives the room back). Without room it waits when wait is set, else fails
// with ErrNoRoom.
func ReservedBody(t *Ticket, n int64, wait bool) (*Body, error) {
	if err := t.Reserve(n, wait); err != nil {
		return nil, err
	}
	b := newBody(t)
	b.reserved = n
	return b, nil
}

// Room returns the memory to write the copy into: empty, with the
// capacity reserved; nil when the writer must allocate.
func (b *Body) Room() []byte { return b.buf[:0] }

// Set makes p the body: written into its buffer, or, when that had no room
// for it, allocated by the writer and adopted in place of the buffer and
// the room reserved.
func (b *Body) Set(p []byte) {
	if cap(b.buf) > 0 && cap(p) > 0 && unsafe.SliceData(p) == unsafe.SliceData(b.buf) {
		b.buf = p
		return
	}
	if cap(b.buf) > 0 {
		b.t.Put(b.buf)
	}
	b.buf = p
	if cap(p) > 0 {
		b.t.Adopt(p, b.reserved)
	} else if b.reserved > 0 {
		b.t.Unreserve(b.reserved)
	}
	b.reserved = 0
}

// Extend returns p, what was written so far into the body's memory (Room,
// or an earlier Extend), in a buffer with room for n bytes more, at least
// twice p's, which becomes the body's: a copy that grows as it is written
// (a translation) stays counted, and waits for room as a body being read.
// Set then makes what was written the body.
func (b *Body) Extend(p []byte, n int) ([]byte, error) {
	need := len(p) + n
	buf, err := b.t.Buffer(max(need, 2*cap(p)), max(need, cap(p)+cap(p)/2), true)
	if err != nil {
		return nil, err
	}
	buf = append(buf, p...)
	if cap(b.buf) > 0 {
		b.t.Put(b.buf)
	}
	if b.reserved > 0 {
		b.t.Unreserve(b.reserved)
		b.reserved = 0
	}
	b.buf = buf[:0]
	return buf, nil
}

// Bytes returns the body. It is valid until the last reference goes.
func (b *Body) Bytes() []byte { return b.buf }

// Close lets go of the handler's reference, once.
func (b *Body) Close() {
	if b.closed.CompareAndSwap(false, true) {
		b.release()
	}
}

// release drops one reference; the last one gives the buffer and any room
// reserved back to the budget.
func (b *Body) release() {
	if b.refs.Add(-1) != 0 {
		return
	}
	if b.of != nil {
		b.of.release()
		b.buf, b.of = nil, nil
		return
	}
	if cap(b.buf) > 0 {
		b.t.Put(b.buf)
	}
	if b.reserved > 0 {
		b.t.Unreserve(b.reserved)
	}
	b.buf, b.reserved = nil, 0
}

// Reader returns a new reader of the body that holds a reference until it
// is closed, or collected unclosed.
func (b *Body) Reader() io.ReadCloser {
	b.refs.Add(1)
	r := &bodyReader{owner: b, size: len(b.buf)}
	r.cleanup = runtime.AddCleanup(r, (*Body).dropped, b)
	return r
}

// dropped drops the reference of a reader Go collected unclosed.
func (b *Body) dropped() {
	b.t.b.collected.Add(1)
	b.release()
}

// bodyReader reads a body. Once closed it reaches the body no more: a
// request that outlives its reading (an http.Response keeps its Request)
// must not keep the buffer from being collected after it was given back,
// or memory the budget no longer counts would stay in use.
// Read and Close may be called from different goroutines, as an HTTP
// transport does.
type bodyReader struct {
	mu      sync.Mutex
	owner   *Body // nil once closed
	off     int
	size    int
	cleanup runtime.Cleanup
}

// Read implements io.Reader.
func (r *bodyReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.owner == nil {
		return 0, errReaderClosed
	}
	if r.off >= r.size {
		return 0, io.EOF
	}
	n := copy(p, r.owner.buf[r.off:r.size])
	r.off += n
	return n, nil
}

// WriteTo writes what is left to read to w in one write, as bytes.Reader
// does: an HTTP transport copying the body to its connection needs no
// buffer of its own. The bytes are held by a reference of their own while
// they are written, not by the lock: a Close meanwhile does not wait on a
// slow connection.
func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	owner, start := r.owner, r.off
	if owner == nil {
		r.mu.Unlock()
		return 0, errReaderClosed
	}
	p := owner.buf[start:r.size]
	r.off = r.size
	owner.refs.Add(1)
	r.mu.Unlock()
	defer owner.release()
	n, err := w.Write(p)
	if n < len(p) {
		r.mu.Lock()
		r.off = start + n
		r.mu.Unlock()
		if err == nil {
			err = io.ErrShortWrite
		}
	}
	return int64(n), err
}

// errReaderClosed is what a closed body reader reads.
var errReaderClosed = errors.New("read of a closed request body")

// Len returns how many bytes are left to read.
func (r *bodyReader) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.size - r.off
}

// Close drops the reader's reference to the body, once.
func (r *bodyReader) Close() error {
	r.mu.Lock()
	owner := r.owner
	r.owner = nil
	r.mu.Unlock()
	if owner != nil {
		r.cleanup.Stop()
		owner.release()
	}
	return nil
}
