package budget

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBudgetUnderContention reads bodies of random sizes, some of them
// trickled, from many clients at once through a small budget, and checks
// what the budget promises: it is never exceeded, every request gets its
// body or a clear refusal, the counts add up, and once every request is
// done nothing is in use, and, the cache let go, nothing is held.
func TestBudgetUnderContention(t *testing.T) {
	const clients, rounds, limit = 16, 20, 8 << 20
	b := New(limit)
	var served, overloaded, gaveWay, beyond atomic.Int64
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 1))
			for range rounds {
				size := rng.IntN(3 << 20)
				var src io.Reader = strings.NewReader(strings.Repeat("x", size))
				if rng.IntN(4) == 0 {
					src = &slowReader{r: src, piece: 16 << 10}
				}
				r := httptest.NewRequest("POST", "/v1/messages", src)
				if rng.IntN(3) == 0 {
					r.ContentLength = -1
				}
				tk := b.Ticket(context.Background(), time.Duration(rng.IntN(200))*time.Millisecond)
				body, err := ReadBody(r, 32<<20, tk)
				switch {
				case err == nil:
					if len(body.Bytes()) != size {
						t.Errorf("read %d bytes of %d", len(body.Bytes()), size)
					}
					served.Add(1)
					out, err := CopyRoom(tk, len(body.Bytes()))
					if err == nil {
						out.Set(append(out.Room(), body.Bytes()...))
						out.Close()
					}
					body.Close()
				case errors.Is(err, ErrOverloaded):
					overloaded.Add(1)
				case errors.Is(err, ErrGaveWay):
					gaveWay.Add(1)
				case errors.Is(err, ErrBeyondBudget):
					beyond.Add(1)
				default:
					t.Errorf("reading %d bytes: %v", size, err)
				}
			}
		})
	}
	wg.Wait()
	if served.Load()+overloaded.Load()+gaveWay.Load()+beyond.Load() != clients*rounds {
		t.Fatalf("%d served, %d overloaded, %d gave way, %d beyond the budget, of %d",
			served.Load(), overloaded.Load(), gaveWay.Load(), beyond.Load(), clients*rounds)
	}
	if served.Load() == 0 {
		t.Fatal("no request was served")
	}
	s := b.Stats()
	if s.InUse != 0 || s.Peak > limit {
		t.Fatalf("after every request: %+v", s)
	}
	b.mu.Lock()
	if len(b.waiters) != 0 || b.givingWay != 0 {
		t.Fatalf("%d waiters, %d bytes giving way", len(b.waiters), b.givingWay)
	}
	b.cache.trim(0)
	leases := len(b.leases)
	b.mu.Unlock()
	// Every buffer was given back by its request, none left to Go's
	// collector: with the cache let go, nothing is held.
	if after := b.Stats(); after.Held != 0 || after.Collected != 0 || leases != 0 {
		t.Fatalf("with the cache let go, %+v, %d buffers leased", after, leases)
	}
	t.Logf("%d served, %d overloaded, %d gave way, %d beyond the budget; %d waits, peak %d of %d",
		served.Load(), overloaded.Load(), gaveWay.Load(), beyond.Load(), s.Waits, s.Peak, limit)
}

// slowReader reads at most piece bytes at a time, yielding in between.
type slowReader struct {
	r     io.Reader
	piece int
}

func (s *slowReader) Read(p []byte) (int, error) {
	runtime.Gosched()
	return s.r.Read(p[:min(len(p), s.piece)])
}

// BenchmarkBudgetBuffer is what every request pays the budget for its
// buffers in the steady state: one taken from the cache and given back.
func BenchmarkBudgetBuffer(b *testing.B) {
	for _, size := range []int{256 << 10, 1 << 20} {
		b.Run(fmt.Sprint(size>>10, "KiB"), func(b *testing.B) {
			budget := New(256 << 20)
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					tk := budget.Ticket(context.Background(), time.Second)
					buf, err := tk.Buffer(size, size, true)
					if err != nil {
						b.Fatal(err)
					}
					tk.Put(buf)
				}
			})
		})
	}
}

func TestDefaultFollowsGOMEMLIMIT(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	debug.SetMemoryLimit(math.MaxInt64)
	if got := Default(); got != DefaultLimit {
		t.Fatalf("without GOMEMLIMIT: %d", got)
	}
	debug.SetMemoryLimit(256 << 20)
	if got := Default(); got != 128<<20 {
		t.Fatalf("with GOMEMLIMIT 256MiB: %d, want half", got)
	}
	debug.SetMemoryLimit(16 << 30)
	if got := Default(); got != DefaultLimit {
		t.Fatalf("with GOMEMLIMIT 16GiB: %d, want the default", got)
	}
}
