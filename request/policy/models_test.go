package policy

import "testing"

func TestModelsCapable(t *testing.T) {
	m := Models{"claude-*", "glm-4.?", "ollama/qwen3:*", "deepseek-r1"}
	tests := []struct {
		model string
		want  bool
	}{
		{"claude-sonnet-4-5", true},
		{"claude-", true},
		{"glm-4.6", true},
		{"glm-4.10", false},
		{"ollama/qwen3:8b", true},
		{"qwen3:8b", false},
		{"deepseek-r1", true},
		{"deepseek-r1:14b", false},
		{"Claude-sonnet", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := m.Capable(tt.model); got != tt.want {
			t.Errorf("Capable(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
	if !(Models{}).Capable("anything") {
		t.Error("no patterns must mean every model is capable")
	}
}
