package registry

import (
	"math/rand/v2"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// TestIndexAgreesWithAMap inserts and removes random keys, clustered into
// few home buckets (a seed of zero bits is not what makes clusters: the
// table is kept small), and checks after every step that the index finds
// exactly what a map holds and that every probe ends: a removal that left a
// gap in a cluster would hide the keys behind it.
func TestIndexAgreesWithAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := newIndex()
	es := newEntries()
	want := map[block.Key]slot{}
	var free []slot
	var live []block.Key
	for step := range 20000 {
		if len(live) > 0 && (rng.IntN(2) == 0 || len(live) > 3000) {
			i := rng.IntN(len(live))
			k := live[i]
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			at := want[k]
			x.remove(k, at)
			delete(want, k)
			*es.at(at) = entry{}
			free = append(free, at)
		} else {
			k := benchKey(rng.Int())
			if _, ok := want[k]; ok {
				continue
			}
			var at slot
			if n := len(free); n > 0 {
				at, free = free[n-1], free[:n-1]
			} else {
				at = es.grow()
			}
			*es.at(at) = entry{key: k}
			x.insert(k, at)
			want[k] = at
			live = append(live, k)
		}
		if x.n != len(want) {
			t.Fatalf("step %d: index holds %d keys, want %d", step, x.n, len(want))
		}
		if 2*x.n > len(x.buckets) {
			t.Fatalf("step %d: %d keys in %d buckets: more than half full", step, x.n, len(x.buckets))
		}
		if step%97 == 0 || len(want) < 50 {
			for k, at := range want {
				if got := x.find(k, &es); got != at {
					t.Fatalf("step %d: find(%v) = %d, want %d", step, k, got, at)
				}
			}
			if got := x.find(benchKey(-1-step), &es); got != 0 {
				t.Fatalf("step %d: found a key never inserted at %d", step, got)
			}
		}
	}
}

func TestEntriesGrowByPagesWithoutMoving(t *testing.T) {
	es := newEntries()
	first := es.grow()
	es.at(first).born = 42
	p := es.at(first)
	for range 3 * pageSize {
		es.grow()
	}
	if es.at(first) != p || p.born != 42 {
		t.Fatal("an entry moved when the slab grew")
	}
	if len(es.pages) != 4 || es.n != 3*pageSize+2 {
		t.Fatalf("%d pages for %d slots", len(es.pages), es.n)
	}
}
