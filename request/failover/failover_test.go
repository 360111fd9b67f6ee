package failover

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

func TestListCheck(t *testing.T) {
	for _, tc := range []struct {
		l    List
		want string
	}{
		{List{Backends: []string{"a", "b"}}, ""},
		{List{Backends: []string{"a", "b", "c"}, Statuses: []int{429}, Hold: time.Minute}, ""},
		{List{Backends: []string{"a"}}, "failover needs two backends or more, got 1"},
		{List{Backends: []string{"a", "a"}}, `failover: backend "a" is listed twice`},
		{List{Backends: []string{"a", " "}}, "failover: backend 1 is empty"},
		{List{Backends: []string{"a", "b"}, Statuses: []int{302}}, "failover: on 302: want a status from 400 to 599"},
		{List{Backends: []string{"a", "b"}, Hold: 2 * time.Hour}, "failover: hold 2h0m0s: want from 0 to 1h0m0s"},
	} {
		err := tc.l.Check()
		if got := fmt.Sprint(err); tc.want == "" && err != nil || tc.want != "" && got != tc.want {
			t.Errorf("%+v: %v, want %q", tc.l, err, tc.want)
		}
	}
}

func TestMovesOn(t *testing.T) {
	def := List{Backends: []string{"a", "b"}}
	for _, s := range []int{429, 500, 502, 503, 504, 529} {
		if !def.MovesOn(s) {
			t.Errorf("%d does not move on by default", s)
		}
	}
	for _, s := range []int{200, 400, 401, 404, 413, 422} {
		if def.MovesOn(s) {
			t.Errorf("%d moves on by default", s)
		}
	}
	only := List{Backends: []string{"a", "b"}, Statuses: []int{429}}
	if !only.MovesOn(429) || only.MovesOn(529) {
		t.Error("the configured statuses are not the ones that move on")
	}
}

func TestOrder(t *testing.T) {
	l := List{Backends: []string{"a", "b", "c"}}
	for first, want := range map[string][]string{"a": {"a", "b", "c"}, "b": {"b", "c", "a"}, "c": {"c", "a", "b"}, "x": {"x"}} {
		if got := l.Order(first); !slices.Equal(got, want) {
			t.Errorf("Order(%q) = %v, want %v", first, got, want)
		}
	}
}

func TestHoldFor(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	l := List{Backends: []string{"a", "b"}, Hold: time.Minute}
	for ra, want := range map[string]time.Duration{
		"":      time.Minute,
		"30":    time.Minute,
		"120":   2 * time.Minute,
		"99999": MaxHold,
		"-5":    time.Minute,
		"soon":  time.Minute,
		now.Add(10 * time.Minute).Format(http.TimeFormat): 10 * time.Minute,
		now.Add(-time.Minute).Format(http.TimeFormat):     time.Minute,
	} {
		if got := l.HoldFor(ra, now); got != want {
			t.Errorf("HoldFor(%q) = %s, want %s", ra, got, want)
		}
	}
}

func TestHolds(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	h := NewHolds(func() time.Time { return now })
	if _, ok := h.Held("s1"); ok {
		t.Fatal("held before any hold")
	}
	h.Hold("s1", "zai", time.Minute)
	h.Hold("s2", "zai", 0) // no hold at all
	if b, ok := h.Held("s1"); !ok || b != "zai" {
		t.Fatalf("Held = %q %v", b, ok)
	}
	if _, ok := h.Held("s2"); ok {
		t.Fatal("a hold of 0 holds")
	}
	now = now.Add(59 * time.Second)
	if _, ok := h.Held("s1"); !ok {
		t.Fatal("the hold ended early")
	}
	now = now.Add(time.Second)
	if _, ok := h.Held("s1"); ok || h.Len() != 0 {
		t.Fatal("the hold outlived its time")
	}
	h.Hold("s1", "zai", time.Minute)
	h.Release("s1")
	if _, ok := h.Held("s1"); ok {
		t.Fatal("a released hold holds")
	}
}

// TestHoldsListAndEnd: List shows the holds in force, not those that
// ran out; End ends those on one backend, or all.
func TestHoldsListAndEnd(t *testing.T) {
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	h := NewHolds(func() time.Time { return now })
	h.Hold("s1", "zai", time.Minute)
	h.Hold("s2", "kimi", time.Minute)
	h.Hold("s3", "zai", time.Second)
	now = now.Add(2 * time.Second)
	got := h.List()
	want := []Hold{{"s1", "zai", now.Add(58 * time.Second)}, {"s2", "kimi", now.Add(58 * time.Second)}}
	if !slices.Equal(got, want) {
		t.Fatalf("List = %v, want %v", got, want)
	}
	if n := h.End("zai"); n != 2 { // s3 ran out, and is ended too
		t.Fatalf("End(zai) = %d, want 2", n)
	}
	if _, ok := h.Held("s2"); !ok {
		t.Fatal("End(zai) ended the hold on kimi")
	}
	if n := h.End(""); n != 1 || h.Len() != 0 {
		t.Fatalf("End() = %d, %d left", n, h.Len())
	}
}

// TestHoldsConcurrently: holds taken at once by many goroutines are all
// kept, each with its own backend, up to the bound.
func TestHoldsConcurrently(t *testing.T) {
	h := NewHolds(nil)
	var wg sync.WaitGroup
	const workers, each = 8, 200
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				h.Hold(fmt.Sprintf("c%d-%d", w, i), fmt.Sprint(w), time.Hour)
			}
		}()
	}
	wg.Wait()
	if h.Len() != workers*each {
		t.Fatalf("%d holds, want %d", h.Len(), workers*each)
	}
	for w := range workers {
		for i := range each {
			if b, ok := h.Held(fmt.Sprintf("c%d-%d", w, i)); !ok || b != fmt.Sprint(w) {
				t.Fatalf("c%d-%d: %q %v", w, i, b, ok)
			}
		}
	}
	for i := range MaxHolds {
		h.Hold(fmt.Sprintf("more-%d", i), "x", time.Hour)
	}
	if h.Len() != MaxHolds {
		t.Fatalf("%d holds, past the bound %d", h.Len(), MaxHolds)
	}
}
