package failover

import (
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// MaxHolds bounds the conversations a Holds remembers; the least recently
// held are forgotten first, and go back to their first backend early.
const MaxHolds = 4096

// Holds remembers, per conversation, the backend it went on to and until
// when it stays there. It is per process: replicas each learn their own
// (a replica that did not see the refusal asks the first backend once,
// and holds too). It is safe for concurrent use.
type Holds struct {
	mu   sync.Mutex
	held *lru.Cache[string, hold]
	now  func() time.Time
}

type hold struct {
	backend string
	until   time.Time
}

// NewHolds returns an empty Holds; now is the clock, time.Now when nil.
func NewHolds(now func() time.Time) *Holds {
	if now == nil {
		now = time.Now
	}
	c, _ := lru.New[string, hold](MaxHolds)
	return &Holds{held: c, now: now}
}

// Hold keeps conversation on backend for d.
func (h *Holds) Hold(conversation, backend string, d time.Duration) {
	if d <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held.Add(conversation, hold{backend: backend, until: h.now().Add(d)})
}

// Held returns the backend conversation holds on, or false when it holds
// on none (never, or no longer).
func (h *Holds) Held(conversation string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held.Len() == 0 {
		return "", false
	}
	hd, ok := h.held.Get(conversation)
	if !ok {
		return "", false
	}
	if !h.now().Before(hd.until) {
		h.held.Remove(conversation)
		return "", false
	}
	return hd.backend, true
}

// Release ends conversation's hold: it answered on the backend it was
// routed to.
func (h *Holds) Release(conversation string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.held.Len() > 0 {
		h.held.Remove(conversation)
	}
}

// Len returns how many conversations hold.
func (h *Holds) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held.Len()
}

// Hold is one conversation that holds on a backend, until a time.
type Hold struct {
	Conversation string    `json:"conversation"`
	Backend      string    `json:"backend"`
	Until        time.Time `json:"until"`
}

// List returns the conversations that hold now, the least recently held
// or asked first.
func (h *Holds) List() []Hold {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	var list []Hold
	for _, c := range h.held.Keys() {
		if hd, ok := h.held.Peek(c); ok && now.Before(hd.until) {
			list = append(list, Hold{Conversation: c, Backend: hd.backend, Until: hd.until})
		}
	}
	return list
}

// End ends the holds on backend (on every backend when ""), as when the
// first backend of a list is known to answer again, and reports how many
// it ended: those conversations go back to the backend they are routed
// to with their next request.
func (h *Holds) End(backend string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.held.Keys() {
		if hd, ok := h.held.Peek(c); ok && (backend == "" || hd.backend == backend) {
			h.held.Remove(c)
			n++
		}
	}
	return n
}
