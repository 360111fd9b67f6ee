package thinking

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// smallestToolLoop is the smallest tool loop a client sends: a call
// without thinking and a result of five bytes.
const smallestToolLoop = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","name":"Bash","input":{"command":"ls"}}]},` +
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV","content":"a.txt"}]}`

// TestFootprintOfRealRequests: what reading takes stays a few percent of
// a Claude Code request's size, and under twice the size of the densest
// conversation a client sends, so that the handler's bound (twice the
// body's size, and 1 MiB) refuses floods of tiny blocks and nothing real.
func TestFootprintOfRealRequests(t *testing.T) {
	files, err := os.ReadDir(fixtureDir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if !strings.HasPrefix(f.Name(), "capture-") || f.Name() == "capture-headers.json" {
			continue
		}
		b, err := os.ReadFile(fixtureDir + "/" + f.Name())
		if err != nil {
			t.Fatal(err)
		}
		r, err := Resume(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ratio := float64(r.Footprint()) / float64(len(b)); ratio > 0.05 {
			t.Errorf("%s: structure takes %.3f of its size", f.Name(), ratio)
		}
		r.Release()
		n++
	}
	if n < 5 {
		t.Fatalf("read %d captures", n)
	}
	body := `{"model":"m","messages":[{"role":"user","content":"hi"},` + strings.Repeat(smallestToolLoop+",", 10000) + `{"role":"user","content":"go"}]}`
	r, err := Resume([]byte(body), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if ratio := float64(r.Footprint()) / float64(len(body)); ratio < 1 || ratio > 1.9 {
		t.Errorf("tool loops: structure takes %.3f of their size", ratio)
	}
}

// TestMeterSeesTheStructureGrowAndStopsIt: the meter is told a growing
// footprint every meterStep items, and its error ends the reading.
func TestMeterSeesTheStructureGrowAndStopsIt(t *testing.T) {
	body := `{"messages":[{"role":"assistant","content":[` + strings.Repeat(`{"type":"thinking"},`, 5000) + `{"type":"text","text":"x"}]}]}`
	var seen []int
	r, err := ResumeWith([]byte(body), Resumption{Meter: func(bytes int) error { seen = append(seen, bytes); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Footprint() != 5001*PartCost+5000*BlockCost+MessageCost {
		t.Errorf("footprint %d", r.Footprint())
	}
	r.Release()
	if len(seen) != 5001/meterStep {
		t.Fatalf("meter told %d times: %v", len(seen), seen)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] <= seen[i-1] {
			t.Fatalf("footprint did not grow: %v", seen)
		}
	}
	stop := errors.New("no room")
	calls := 0
	_, err = ResumeWith([]byte(body), Resumption{Meter: func(int) error { calls++; return stop }})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}
