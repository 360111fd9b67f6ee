package policy

import "testing"

func TestOnlyTheFirstMismatchOfAConversationCounts(t *testing.T) {
	m := NewMismatches()
	steps := []struct {
		conv, requested, answered string
		want                      bool
	}{
		{"c1", "claude-sonnet-4-5", "claude-sonnet-4-5", false},
		{"c1", "claude-sonnet-4-5", "", false},
		{"c1", "", "glm-4.6", false},
		{"c1", "claude-sonnet-4-5", "glm-4.6", true},
		{"c1", "claude-sonnet-4-5", "glm-4.6", false},
		{"c1", "claude-opus-4-5", "glm-4.6", false},
		{"c2", "claude-sonnet-4-5", "glm-4.6", true},
	}
	for i, s := range steps {
		if got := m.First(s.conv, s.requested, s.answered); got != s.want {
			t.Errorf("step %d %+v: First = %v", i, s, got)
		}
	}
	var none *Mismatches
	if none.First("c", "a", "b") {
		t.Error("a nil set reported a mismatch")
	}
}
