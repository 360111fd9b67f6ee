// Package failover decides where a request goes when the backend it went
// to turns it away before any byte of its answer reached the client: a 429
// (rate limit, quota), a 529 or 503 (overloaded), another 5xx, a connection
// that could not be made. The request goes on to the next backend of a
// list, and the conversation stays there for a while (it holds), so that
// its next requests do not pay the refusal again; then it goes back to the
// first.
//
// What becomes of the request's thinking on the way is not this package's
// business: llm_thinking plans it for each backend as for a switch (see
// package policy). The package knows nothing of HTTP handlers or Caddy.
package failover

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultStatuses are the statuses a request goes on from when the
// configuration names none: rate limited, overloaded, or failed at the
// backend (a connection that could not be made is a 502).
var DefaultStatuses = []int{http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
	http.StatusServiceUnavailable, http.StatusGatewayTimeout, 529}

// DefaultHold is how long a conversation stays on the backend it went on
// to, when the configuration says nothing: long enough for a rate limit's
// window, short enough to come back to the first backend the same session.
const DefaultHold = 5 * time.Minute

// MaxHold bounds how long a Retry-After can hold a conversation away from
// a backend.
const MaxHold = time.Hour

// List is a failover list: the backends, in the order a request goes on
// through them, the statuses that move it on, and how long it holds.
type List struct {
	Backends []string
	Statuses []int
	Hold     time.Duration
}

// Check reports what is wrong with l.
func (l List) Check() error {
	if len(l.Backends) < 2 {
		return fmt.Errorf("failover needs two backends or more, got %d", len(l.Backends))
	}
	for i, b := range l.Backends {
		if strings.TrimSpace(b) == "" {
			return fmt.Errorf("failover: backend %d is empty", i)
		}
		if slices.Index(l.Backends, b) != i {
			return fmt.Errorf("failover: backend %q is listed twice", b)
		}
	}
	for _, s := range l.Statuses {
		if s < 400 || s > 599 {
			return fmt.Errorf("failover: on %d: want a status from 400 to 599", s)
		}
	}
	if l.Hold < 0 || l.Hold > MaxHold {
		return fmt.Errorf("failover: hold %s: want from 0 to %s", l.Hold, MaxHold)
	}
	return nil
}

// MovesOn reports whether an answer of status moves a request on.
func (l List) MovesOn(status int) bool {
	if len(l.Statuses) == 0 {
		return slices.Contains(DefaultStatuses, status)
	}
	return slices.Contains(l.Statuses, status)
}

// Order returns the backends a request tries in turn: from first on,
// around the list, each once; just first when first is not in the list.
// first is where the conversation holds (see Holds), else the backend the
// request was routed to.
func (l List) Order(first string) []string {
	i := slices.Index(l.Backends, first)
	if i < 0 {
		return []string{first}
	}
	return append(slices.Clone(l.Backends[i:]), l.Backends[:i]...)
}

// HoldFor returns how long a conversation holds on the backend it went on
// to: the list's hold, or the Retry-After of the answer that moved it
// (seconds, or an HTTP date) when that is longer, up to MaxHold.
func (l List) HoldFor(retryAfter string, now time.Time) time.Duration {
	hold := l.Hold
	if d, ok := parseRetryAfter(retryAfter, now); ok && d > hold {
		hold = min(d, MaxHold)
	}
	return hold
}

// parseRetryAfter reads a Retry-After header.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		return time.Duration(min(n, int64(MaxHold/time.Second))) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
