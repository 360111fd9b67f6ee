package policy

import (
	"bytes"
	"net/http"
	"testing"
)

func TestAHeldCheckpointIsUsedOnceAndGivenBack(t *testing.T) {
	p := newPolicy()
	p.Checkpoints = NewCheckpoints(DefaultCheckpointBudget)
	h := http.Header{"X-Claude-Code-Session-Id": {"c1"}}
	first := body("s1", "s2")
	pl := p.Plan(Request{Body: first, Header: h, Backend: "a"})
	pl.Release()

	next := body("s1", "s2", "s3")
	held := p.Hold(h)
	prefix := held.Prefix()
	if len(prefix) == 0 || !bytes.HasPrefix(next, prefix) {
		t.Fatalf("held prefix %q is not the start of the next body", prefix)
	}
	if other := p.Hold(h); other.Prefix() != nil {
		t.Fatal("a second request got the checkpoint another one holds")
	}
	pl = p.Plan(Request{Body: next, Header: h, Backend: "a", Held: held, Covered: true})
	pl.Release()
	if held.Prefix() != nil {
		t.Fatal("the checkpoint is still held after Plan used it")
	}
	held.Release() // a no-op once Plan gave it back
	again := p.Hold(h)
	if len(again.Prefix()) <= len(prefix) {
		t.Fatalf("the checkpoint did not move on: prefix %d bytes, was %d", len(again.Prefix()), len(prefix))
	}
	again.Release()
	if p.Hold(h).Prefix() == nil {
		t.Fatal("Release did not give the checkpoint back")
	}
}

func TestNothingIsHeldWithoutAConversation(t *testing.T) {
	p := newPolicy()
	p.Checkpoints = NewCheckpoints(DefaultCheckpointBudget)
	held := p.Hold(http.Header{})
	if held != nil || held.Prefix() != nil {
		t.Fatal("held a checkpoint for no conversation")
	}
	held.Release()
}
