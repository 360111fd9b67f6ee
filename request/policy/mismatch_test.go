package policy

import "testing"

func TestOnlyTheFirstMismatchOfAConversationCounts(t *testing.T) {
	m := NewMismatches()
	steps := []struct {
		conv, requested, answered string
		want, pair                bool
	}{
		{"c1", "claude-sonnet-4-5", "claude-sonnet-4-5", false, false},
		{"c1", "claude-sonnet-4-5", "", false, false},
		{"c1", "", "glm-4.6", false, false},
		{"c1", "claude-sonnet-4-5", "glm-4.6", true, true},
		{"c1", "claude-sonnet-4-5", "glm-4.6", false, false},
		{"c1", "claude-opus-4-5", "glm-4.6", false, true},
		{"c2", "claude-sonnet-4-5", "glm-4.6", true, false},
	}
	for i, s := range steps {
		if got, pair := m.First(s.conv, "glm", s.requested, s.answered); got != s.want || pair != s.pair {
			t.Errorf("step %d %+v: First = %v, %v", i, s, got, pair)
		}
	}
	if _, pair := m.First("c3", "zai", "claude-sonnet-4-5", "glm-4.6"); !pair {
		t.Error("another backend's first mismatch of a pair was not its first")
	}
	var none *Mismatches
	if c, p := none.First("c", "x", "a", "b"); c || p {
		t.Error("a nil set reported a mismatch")
	}
}
