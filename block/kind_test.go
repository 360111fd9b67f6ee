package block

import "testing"

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Thinking: "thinking", Redacted: "redacted_thinking", 0: "Kind(0)", 7: "Kind(7)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", uint8(k), got, want)
		}
	}
}
