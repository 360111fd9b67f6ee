package thinking

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// A body is checked against a History stretch by stretch, then message by
// message from the stretch that differs: wherever the body first differs
// from the History's, it shares exactly the messages that end before that
// byte, as it does when checked message by message, and the Memo holds the
// pieces of those messages for the next History checked against it.
func TestSharedFindsWhereTheBodyFirstDiffers(t *testing.T) {
	body := fixtureOfSize(t, 1<<20)
	req := mustParse(t, body)
	h, array := req.History(), req.arrayAt
	req.Release()
	if len(h.stretches) < 16 {
		t.Fatalf("a 1 MiB history has %d stretches, want at least 16", len(h.stretches))
	}
	byMessage := &History{ends: h.ends, digests: h.digests}
	want := func(b []byte) int { return sharedByBytes(h, array, body, b) }
	flip := func(at int) []byte {
		b := bytes.Clone(body)
		b[at] ^= 0x20
		return b
	}
	first := array + int(h.ends[0])
	bodies := [][]byte{body, body[:len(body)-1], body[:first], append(bytes.Clone(body), " "...)}
	for _, s := range h.stretches {
		end := array + int(h.ends[s.last])
		bodies = append(bodies, flip(end-1), body[:end], body[:end-1])
		if end < len(body) {
			bodies = append(bodies, flip(end))
		}
	}
	rng := rand.New(rand.NewPCG(31, 1))
	for range 100 {
		at := first + rng.IntN(len(body)-first)
		bodies = append(bodies, flip(at), body[:at])
	}
	for i, b := range bodies {
		var memo Memo
		got := h.Shared(b, array, &memo)
		if w := want(b); got != w {
			t.Fatalf("body %d (%d bytes, first difference at %d): shares %d messages, want %d", i, len(b), firstDifference(b, body), got, w)
		}
		for k := range got {
			if memo.pieces[k] != (Piece{h.ends[k], h.digests[k]}) {
				t.Fatalf("body %d: memo piece %d is %v, want the History's", i, k, memo.pieces[k])
			}
		}
		if again := byMessage.Shared(b, array, &memo); again != got {
			t.Fatalf("body %d: checked message by message through the memo it shares %d, want %d", i, again, got)
		}
		if fresh := byMessage.Shared(b, array, new(Memo)); fresh != got {
			t.Fatalf("body %d: checked message by message it shares %d, want %d", i, fresh, got)
		}
		if alone := h.Shared(b, array, nil); alone != got {
			t.Fatalf("body %d: without a memo it shares %d, want %d", i, alone, got)
		}
		if alone := byMessage.Shared(b, array, nil); alone != got {
			t.Fatalf("body %d: without a memo, message by message, it shares %d, want %d", i, alone, got)
		}
		// The next body's Memo is made of this one's memory, pieces of
		// another body in it: nothing of them may show through.
		memo.Release()
	}
}

// TestSharedThroughAMemoOfOtherBoundaries: a memo filled along one
// History's messages gives another History, checked against the same body,
// none of its digests past where the two Histories' messages end apart.
func TestSharedThroughAMemoOfOtherBoundaries(t *testing.T) {
	a := fixtureOfSize(t, 128<<10)
	req := mustParse(t, a)
	ha, array := req.History(), req.arrayAt
	req.Release()
	k := ha.Len() / 2
	at := array + int(ha.ends[k-1]) + 2 // inside message k, past its '{'
	if a[at-2] != ',' || a[at-1] != '{' {
		t.Fatalf("message %d does not start as %q: %q", k, ",{", a[at-2:at])
	}
	b := slices.Concat(a[:at], []byte(" "), a[at:])
	req = mustParse(t, b)
	hb := req.History()
	req.Release()
	var memo Memo
	defer memo.Release()
	if got := ha.Shared(b, array, &memo); got != k {
		t.Fatalf("the first History shares %d messages, want %d", got, k)
	}
	if got := hb.Shared(b, array, &memo); got != hb.Len() {
		t.Fatalf("through the memo the first left, the body's own History shares %d messages, want all %d", got, hb.Len())
	}
}

// FuzzSharedAgreesWithTheBytes changes a byte of a 128 KiB body and cuts
// it somewhere: checked against its History stretch by stretch, the body
// shares the messages that end before the first byte that differs, as it
// does checked message by message.
func FuzzSharedAgreesWithTheBytes(f *testing.F) {
	body := fixtureOfSize(f, 128<<10)
	req := mustParse(f, body)
	h, array := req.History(), req.arrayAt
	req.Release()
	byMessage := &History{ends: h.ends, digests: h.digests}
	first := array + int(h.ends[0])
	f.Add(uint32(0), byte(0), uint32(0))
	for _, s := range h.stretches {
		// The last byte of every stretch and the first after it, changed
		// or cut at.
		end := uint32(array + int(h.ends[s.last]) - first)
		f.Add(end-1, byte(0x20), uint32(0))
		f.Add(end, byte(0x20), uint32(0))
		f.Add(uint32(0), byte(0), end)
	}
	f.Fuzz(func(t *testing.T, at uint32, x byte, cut uint32) {
		b := bytes.Clone(body)
		b[first+int(at)%(len(b)-first)] ^= x
		if cut > 0 {
			b = b[:first+int(cut)%(len(b)-first)]
		}
		want := sharedByBytes(h, array, body, b)
		if got := h.Shared(b, array, new(Memo)); got != want {
			t.Fatalf("shares %d messages, want %d (first difference at %d)", got, want, firstDifference(b, body))
		}
		if got := byMessage.Shared(b, array, new(Memo)); got != want {
			t.Fatalf("checked message by message it shares %d messages, want %d", got, want)
		}
	})
}

// sharedByBytes returns what h.Shared must answer for b: how many of h's
// messages end before the first byte where b differs from body, h's own,
// whose messages array opens at body[array].
func sharedByBytes(h *History, array int, body, b []byte) int {
	d := min(len(b), len(body))
	if i := firstDifference(b, body); i >= 0 {
		d = i
	}
	n := 0
	for _, end := range h.ends {
		if array+int(end) <= d {
			n++
		}
	}
	return n
}

// firstDifference returns where a and b first differ, or -1 when one
// starts with the other.
func firstDifference(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// The stretches of a History made from the one before it, as a thread's
// next request makes it, are those of the History read from scratch, turn
// after turn, and a body checked against them shares all their messages.
func TestStretchesOfTheNextRequest(t *testing.T) {
	body := fixtureOfSize(t, 256<<10)
	var h *History
	var cp Checkpoint
	for turn := range 4 {
		req, err := Resume(body, follow(h, &cp))
		if err != nil {
			t.Fatal(err)
		}
		if turn > 0 && req.from.Shared != h.Len() {
			t.Fatalf("turn %d shares %d messages, want %d", turn, req.from.Shared, h.Len())
		}
		full := mustParse(t, body)
		next, fresh := req.History(), full.History()
		if !reflect.DeepEqual(next, fresh) {
			t.Fatalf("turn %d: the History made from the last differs from the one read from scratch:\n%v\n%v", turn, next.stretches, fresh.stretches)
		}
		if len(next.stretches) < 4 {
			t.Fatalf("turn %d: %d stretches in 256 KiB", turn, len(next.stretches))
		}
		h = next
		req.Save(&cp)
		req.Release()
		full.Release()
		body = nextRequest(t, body, turn)
	}
}
