package registry

import (
	"fmt"
	"testing"
	"time"
)

func TestRefusedBlocksAreReportedForTheirRefuserOnly(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	r.Observe(tid("s1"), "A", key("a1"))
	r.Refuse("A", key("a1"), key("never seen"))
	r.Refuse("A", key("a1")) // once is enough

	a := admit(r, "s1", "A", true, "a1", "never seen", "other")
	if a.Origins[0] != "A" || !a.Refused[0] || a.Origins[1] != "" || !a.Refused[1] || a.Refused[2] {
		t.Fatalf("origins %q, refused %v", a.Origins, a.Refused)
	}
	if a := admit(r, "s1", "B", false, "a1"); a.Refused[0] {
		t.Fatal("a block refused by A is reported refused for B")
	}
	if s := r.Stats(); s.Refusals != 2 {
		t.Fatalf("refusals = %d, want 2", s.Refusals)
	}
}

func TestServedNamesTheLatestBackend(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	// A request whose backend is not known yet moves nothing...
	if a := admit(r, "s1", "", true); a.Switched || r.Last("s1") != "" {
		t.Fatalf("an unknown backend switched or became the latest: %+v", a)
	}
	// ...the answer does.
	if switched, _ := r.Served("s1", "10.0.0.1:443"); switched {
		t.Fatal("the first answer counted as a switch")
	}
	switched, previous := r.Served("s1", "10.0.0.2:443")
	if !switched || previous != "10.0.0.1:443" || r.Last("s1") != "10.0.0.2:443" {
		t.Fatalf("switched %v from %q, last %q", switched, previous, r.Last("s1"))
	}
	if a := admit(r, "s1", "10.0.0.2:443", false); !a.Mixed {
		t.Fatal("a conversation answered by two upstreams is not mixed")
	}
	if s := r.Stats(); s.Switches != 1 {
		t.Fatalf("switches = %d, want 1", s.Switches)
	}
}

func TestSnapshotRebuildsOriginsRefusalsAndBackends(t *testing.T) {
	r, c := newTestRegistry(t, Config{})
	r.Record()
	r.Observe(tid("s1"), "A", key("a1"))
	admit(r, "s1", "A", true, "a1")
	c.advance(time.Second)
	admit(r, "s1", "B", true, "a1")
	r.Observe(tid("s1"), "B", key("b1"))
	r.Refuse("B", key("a1"))

	for name, changes := range map[string][]Change{"snapshot": snapshot(r), "journal": takeAll(r)} {
		t.Run(name, func(t *testing.T) {
			other, _ := newTestRegistry(t, Config{})
			other.Apply(changes)
			a := admit(other, "s1", "B", false, "a1", "b1")
			if a.Origins[0] != "A" || a.Origins[1] != "B" || !a.Refused[0] || a.Refused[1] {
				t.Fatalf("origins %q, refused %v", a.Origins, a.Refused)
			}
			if other.Last("s1") != "B" || !a.Mixed {
				t.Fatalf("last %q, mixed %v", other.Last("s1"), a.Mixed)
			}
			// What was applied is not journaled again.
			if ch, _ := other.TakeChanges(nil); len(ch) != 0 {
				t.Fatalf("applied changes were journaled: %v", ch)
			}
		})
	}
}

func TestOlderServedChangesDoNotWin(t *testing.T) {
	r, _ := newTestRegistry(t, Config{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r.Apply([]Change{
		{Op: Served, Conversation: "s1", Backend: "new", At: t0.Add(time.Minute)},
		{Op: Served, Conversation: "s1", Backend: "old", At: t0},
	})
	if got := r.Last("s1"); got != "new" {
		t.Fatalf("last = %q, want new", got)
	}
}

func TestJournalIsBounded(t *testing.T) {
	r, _ := newTestRegistry(t, Config{MaxBlocks: 10})
	r.Record()
	for i := range maxJournal + 10 {
		r.Observe(tid("s1"), "A", key(fmt.Sprint(i)))
	}
	changes, dropped := r.TakeChanges(nil)
	if len(changes) > maxJournal || int(dropped)+len(changes) != maxJournal+10 {
		t.Fatalf("%d changes kept, %d dropped, of %d", len(changes), dropped, maxJournal+10)
	}
	if last := changes[len(changes)-1]; last.Key != key(fmt.Sprint(maxJournal+9)) {
		t.Fatal("the newest change was dropped")
	}
}

func takeAll(r *Registry) []Change {
	changes, _ := r.TakeChanges(nil)
	return changes
}
