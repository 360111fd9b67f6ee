package messagesapi

import (
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonout"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// TestJoinedText: WriteJoined separates blocks once one had text, a tool
// result every two of its text blocks; a string is as it is.
func TestJoinedText(t *testing.T) {
	blocks := `[{"type":"text","text":""},{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]`
	for _, tt := range []struct {
		write func(*jsonout.Writer, jsonscan.Value)
		v     string
		want  string
	}{
		{WriteJoined, blocks, `a\n\nb`},
		{WriteJoined, `"x\ny"`, `x\ny`},
		{WriteToolResult, `{"content":` + blocks + `}`, `\n\na\n\nb`},
		{WriteToolResult, `{"content":"x"}`, `x`},
	} {
		var w jsonout.Writer
		tt.write(&w, jsonscan.Parse([]byte(tt.v)))
		if string(w.Out) != tt.want {
			t.Errorf("%s: %s, want %s", tt.v, w.Out, tt.want)
		}
	}
}
