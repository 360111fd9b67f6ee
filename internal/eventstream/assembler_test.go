package eventstream

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// assembled is what an Assembler read of a stream: each event as
// "raw|name|data" (raw with the late '\n' Feed reported put back after it),
// and whether it overflowed, with the bytes it then had not read.
func assembled(t testing.TB, chunks [][]byte) (events []string, rest string) {
	var a Assembler
	type event struct{ raw, name, data string }
	var evs []event
	for _, c := range chunks {
		if a.Feed(c) {
			if len(evs) == 0 {
				t.Fatal("a late '\\n' with no event before it")
			}
			evs[len(evs)-1].raw += "\n"
		}
		for {
			f, ok := a.Next()
			if !ok {
				break
			}
			if f.InChunk && !bytes.Equal(f.Raw, c[f.Start:f.End]) {
				t.Fatalf("Raw %q is not the chunk's [%d:%d]", f.Raw, f.Start, f.End)
			}
			if f.DataAt >= 0 && !bytes.Equal(f.Raw[f.DataAt:f.DataAt+len(f.Data)], f.Data) {
				t.Fatalf("Data %q is not at %d of %q", f.Data, f.DataAt, f.Raw)
			}
			e := event{raw: string(f.Raw), name: "-", data: "-"}
			if f.HasName {
				e.name = string(f.Name)
			}
			if f.HasData {
				e.data = string(f.Data)
			}
			evs = append(evs, e)
		}
		if a.Overflow() {
			rest = string(a.Pending()) + string(a.Rest())
			break
		}
	}
	if !a.Overflow() {
		rest = "pending " + string(a.Pending())
	}
	for _, e := range evs {
		events = append(events, fmt.Sprintf("%s|%s|%s", e.raw, e.name, e.data))
	}
	return events, rest
}

// cuts returns s cut at random places, with an empty chunk now and then, as
// a writer may pass one.
func cuts(r *rand.Rand, s string) [][]byte {
	var out [][]byte
	for len(s) > 0 {
		n := r.IntN(min(len(s), 12) + 1)
		out = append(out, []byte(s[:n]))
		s = s[n:]
	}
	return out
}

func TestAssemblerReadsTheSameHoweverTheStreamIsCut(t *testing.T) {
	streams := []string{
		"event: message_start\ndata: {\"type\":\"message_start\"}\n\nevent: ping\ndata: {\"type\":\"ping\"}\n\n",
		"\xef\xbb\xbfevent: a\r\ndata: 1\r\ndata: 2\r\n\r\n: comment\r\ndata\r\n\r\nevent: b\rdata: x\r\r",
		"data: one\n\ndata: two\ndata:\n\nid: 7\nretry: 3\nevent: e\nevent: f\ndata: {}\n\nevent: cut\ndata: never ends",
		"data:no space\n\nnocolon\n\n\n\ndata:  two spaces\n\n",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range streams {
		want, wantRest := assembled(t, [][]byte{[]byte(s)})
		if len(want) == 0 {
			t.Fatalf("no event in %q", s)
		}
		for range 200 {
			got, rest := assembled(t, cuts(r, s))
			if fmt.Sprint(got) != fmt.Sprint(want) || rest != wantRest {
				t.Fatalf("%q cut as it came:\n got %q %q\nwant %q %q", s, got, rest, want, wantRest)
			}
		}
	}
	got, _ := assembled(t, [][]byte{[]byte(streams[1])})
	if got[0] != "\xef\xbb\xbfevent: a\r\ndata: 1\r\ndata: 2\r\n\r\n|a|1\n2" {
		t.Fatalf("first event: %q", got[0])
	}
}

// An empty chunk between the '\r' that ends an event and its '\n' does not
// make the '\n' the first byte of the next event: Feed still reports it late,
// so a rewriter that re-emits events puts it where it belongs.
func TestAssemblerEmptyChunkKeepsTheLateLF(t *testing.T) {
	whole, _ := assembled(t, [][]byte{[]byte("data: a\r\n\r\ndata: b\r\n\r\n")})
	for _, chunks := range [][]string{
		{"data: a\r\n\r", "", "\ndata: b\r\n\r\n"},
		{"data: a\r\n\r", "", "", "\n", "", "data: b\r\n\r\n"},
	} {
		var cs [][]byte
		for _, c := range chunks {
			cs = append(cs, []byte(c))
		}
		if got, _ := assembled(t, cs); fmt.Sprint(got) != fmt.Sprint(whole) {
			t.Errorf("cut as %q:\n got %q\nwant %q", chunks, got, whole)
		}
	}
}

func TestAssemblerDataPointsIntoTheChunk(t *testing.T) {
	var a Assembler
	chunk := []byte("event: x\ndata: {\"a\":1}\n\n")
	a.Feed(chunk)
	f, ok := a.Next()
	if !ok || string(f.Data) != `{"a":1}` || &f.Data[0] != &chunk[15] {
		t.Fatalf("data %q not in the chunk", f.Data)
	}
}

func TestAssemblerGivesUpPastMaxEvent(t *testing.T) {
	big := "data: " + strings.Repeat("x", MaxEvent) + "\n\n"
	stream := "data: small\n\n" + big + "data: after\n\n"
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		var chunks [][]byte
		for s := stream; len(s) > 0; {
			n := 1 + r.IntN(min(len(s), 300_000))
			chunks = append(chunks, []byte(s[:n]))
			s = s[n:]
		}
		events, rest := assembled(t, chunks)
		if len(events) != 1 || !strings.HasPrefix(rest, "data: xxx") || len(rest) > len(big)+len("data: after\n\n") {
			t.Fatalf("%d events, rest %d bytes", len(events), len(rest))
		}
	}
	// An event of MaxEvent bytes exactly is read.
	exact := "data: " + strings.Repeat("y", MaxEvent-len("data: \n\n")) + "\n\n"
	if events, rest := assembled(t, [][]byte{[]byte(exact)}); len(events) != 1 || rest != "pending " {
		t.Fatalf("%d events, rest %q", len(events), rest[:min(len(rest), 20)])
	}
}

// FuzzAssembler: any stream, cut anywhere, reads as it does whole.
func FuzzAssembler(f *testing.F) {
	f.Add([]byte("event: a\r\ndata: 1\r\n\r\ndata: 2\r\r"), uint64(1))
	f.Add([]byte("\xef\xbb\xbfdata: x\n\n:c\ndata\n\n"), uint64(2))
	f.Add([]byte("data: {\"a\":1}\r\n\r\ndata: 2\r\n\r\n:c\r\ndata: x\ry\r\n\r\ndata: z\n\r\n\r\n"), uint64(3)) // Gemini's "\r\n"
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		want, wantRest := assembled(t, [][]byte{stream})
		got, rest := assembled(t, cuts(rand.New(rand.NewPCG(seed, seed)), string(stream)))
		if fmt.Sprint(got) != fmt.Sprint(want) || rest != wantRest {
			t.Fatalf("cut:\n got %q %q\nwant %q %q", got, rest, want, wantRest)
		}
	})
}
