package llmtest

import (
	"strings"
	"testing"
)

func TestRotateKeyRefusesEverythingSignedBefore(t *testing.T) {
	u := newUpstream(t, "anthropic", Strict)
	c := NewConversation(u.URL(), "rotate")
	must(t)(c.Say("hello"))
	u.RotateKey()
	turn, err := c.Say("again")
	wantInvalid(t, turn, err, "messages.1.content.0: Invalid `signature` in `thinking` block")

	// What it signs after the change is accepted.
	fresh := NewConversation(u.URL(), "after")
	must(t)(fresh.Say("hello"))
	must(t)(fresh.Say("again"))
}

func TestCutNextStreamBreaksTheBody(t *testing.T) {
	u := newUpstream(t, "anthropic", Strict)
	c := NewConversation(u.URL(), "cut")
	u.CutNextStream(3)
	turn, err := c.Say("hello")
	if err == nil {
		t.Fatalf("a cut stream read as complete: status %d, %q", turn.Status, turn.Body)
	}
	if len(c.Messages) != 1 {
		t.Fatalf("a cut stream was added to the history")
	}
	// The cut applies once.
	must(t)(c.Send())
}

func TestHugeTextIsStreamedWhole(t *testing.T) {
	u := newUpstream(t, "anthropic", Strict)
	c := NewConversation(u.URL(), "huge")
	turn := must(t)(c.Say("[huge] please"))
	if !strings.Contains(string(turn.Message), strings.Repeat("x", hugeText)) {
		t.Fatalf("the assembled message lacks the %d-byte text", hugeText)
	}
}
