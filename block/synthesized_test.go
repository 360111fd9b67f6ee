package block

import "testing"

func TestIsSynthesized(t *testing.T) {
	for lit, want := range map[string]bool{
		`"llmthinking.v1.abc"`:   true,
		`"llmthinking.v1."`:      false,
		`"EqwBCkYIBxgCKkA..."`:   false,
		`llmthinking.v1.abc`:     false,
		`"llmthinking.v2.abc"`:   false,
		``:                       false,
		`"\u006cmthinking.v1.a"`: false, // escaped: never what this module writes
	} {
		if got := IsSynthesized([]byte(lit)); got != want {
			t.Errorf("IsSynthesized(%s) = %v, want %v", lit, got, want)
		}
	}
}

func TestIsReasoning(t *testing.T) {
	for lit, want := range map[string]bool{
		`"llmthinking.v1.reasoning.abc"`: true,
		`"llmthinking.v1.reasoning."`:    false,
		`"llmthinking.v1.abc"`:           false,
		`llmthinking.v1.reasoning.abc`:   false,
		``:                               false,
	} {
		if got := IsReasoning([]byte(lit)); got != want {
			t.Errorf("IsReasoning(%s) = %v, want %v", lit, got, want)
		}
		if want && !IsSynthesized([]byte(lit)) {
			t.Errorf("IsSynthesized(%s) = false for a reasoning signature", lit)
		}
	}
}
