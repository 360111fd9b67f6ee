package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/claudecode"
)

// taggedText is the text a Tagged instance named "t" writes for its n-th
// answer, as a JSON string literal's content.
func taggedText(n int) string {
	return fmt.Sprintf(`<think>\nt thinks #%d: \"plan\" <b>é😀\nstep 2\n</think>\n\nt answer %d.`, n, n)
}

// textDeltas returns the texts of a stream's text_delta events, failing
// the test on any other content event than text.
func textDeltas(t *testing.T, stream []byte) []string {
	t.Helper()
	var out []string
	for _, ev := range claudecode.Events(stream) {
		var e struct {
			Type         string
			Index        int
			ContentBlock json.RawMessage `json:"content_block"`
			Delta        struct{ Type, Text string }
		}
		if err := json.Unmarshal(ev.Data, &e); err != nil {
			t.Fatalf("event %q: %v", ev.Name, err)
		}
		switch e.Type {
		case "content_block_start":
			if string(e.ContentBlock) != `{"type":"text","text":""}` || e.Index != 0 {
				t.Errorf("block %d starts as %s, want the one text block", e.Index, e.ContentBlock)
			}
		case "content_block_delta":
			if e.Delta.Type != "text_delta" || e.Index != 0 {
				t.Errorf("delta %s of block %d, want text_delta of 0", e.Delta.Type, e.Index)
			}
			out = append(out, e.Delta.Text)
		}
	}
	return out
}

func TestTaggedStream(t *testing.T) {
	up := newUpstream(t, "t", Tagged)
	c := NewConversation(up.URL(), "session-1")
	for n := 1; n <= 3; n++ {
		turn := must(t)(c.Say("hi"))
		wantText := taggedText(n)
		want := `{"role":"assistant","content":[{"type":"text","text":"` + wantText + `"}]}`
		if string(turn.Message) != want {
			t.Fatalf("answer %d\n got %s\nwant %s", n, turn.Message, want)
		}
		// llama.cpp escapes only what JSON requires.
		if !strings.Contains(string(turn.Raw), `"text":"<`) || strings.Contains(string(turn.Raw), `\u003c`) {
			t.Errorf("answer %d: tags are escaped:\n%s", n, turn.Raw)
		}
		deltas := textDeltas(t, turn.Raw)
		var whole strings.Builder
		for i, d := range deltas {
			whole.WriteString(d)
			if !utf8.ValidString(d) {
				t.Errorf("answer %d: delta %d %q cuts a rune", n, i, d)
			}
			size := 3 + (n+i)%3
			if got := utf8.RuneCountInString(d); got != size && (i < len(deltas)-1 || got > size) {
				t.Errorf("answer %d: delta %d %q has %d runes, want %d", n, i, d, got, size)
			}
		}
		var text string
		json.Unmarshal([]byte(`"`+wantText+`"`), &text)
		if whole.String() != text {
			t.Errorf("answer %d: deltas %q make %q", n, deltas, whole.String())
		}
		// The opening tag is cut at another point on every answer.
		if first := deltas[0]; !strings.HasPrefix("<think>", first) || len(first) != 3+n%3 {
			t.Errorf("answer %d: first delta %q", n, first)
		}
		if got := up.Requests()[n-1].Response; !bytes.Equal(got, turn.Raw) {
			t.Errorf("answer %d: Response\n got %q\nwant %q", n, got, turn.Raw)
		}
	}
}

func TestTaggedJSON(t *testing.T) {
	up := newUpstream(t, "t", Tagged)
	c := NewConversation(up.URL(), "session-1")
	c.Stream = false
	turn := must(t)(c.Say("hi"))
	in := len(up.Requests()[0].Body) / 4
	var text string
	json.Unmarshal([]byte(`"`+taggedText(1)+`"`), &text)
	want := `{"id":"msg_t_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"` + taggedText(1) + `"}],` +
		fmt.Sprintf(`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":%d}}`, in, 1+len(text)/4)
	if string(turn.Body) != want {
		t.Errorf("body\n got %s\nwant %s", turn.Body, want)
	}
	if got := up.Requests()[0].Response; !bytes.Equal(got, turn.Raw) {
		t.Errorf("Response\n got %s\nwant %s", got, turn.Raw)
	}
}

func TestTaggedOmitOpeningTag(t *testing.T) {
	up := newUpstream(t, "t", Tagged)
	up.OmitOpeningTag(true)
	c := NewConversation(up.URL(), "session-1")
	turn := must(t)(c.Say("hi"))
	want := `{"role":"assistant","content":[{"type":"text","text":"t thinks #1: \"plan\" <b>é😀\nstep 2\n</think>\n\nt answer 1."}]}`
	if string(turn.Message) != want {
		t.Errorf("message\n got %s\nwant %s", turn.Message, want)
	}
	up.OmitOpeningTag(false)
	turn = must(t)(c.Say("again"))
	want = `{"role":"assistant","content":[{"type":"text","text":"` + taggedText(2) + `"}]}`
	if string(turn.Message) != want {
		t.Errorf("message after OmitOpeningTag(false)\n got %s\nwant %s", turn.Message, want)
	}
}

func TestTaggedToolUseAndThinkingOff(t *testing.T) {
	up := newUpstream(t, "t", Tagged)
	c := NewConversation(up.URL(), "session-1")
	turn := must(t)(c.Say("list [tool] [redacted]"))
	want := `{"role":"assistant","content":[{"type":"text","text":"<think>\nt thinks #1: \"plan\" <b>é😀\nstep 2\n</think>\n\n"},` +
		`{"type":"tool_use","id":"toolu_t_1","name":"Bash","input":{"command":"echo t"}}]}`
	if string(turn.Message) != want || turn.StopReason != "tool_use" {
		t.Errorf("message (%s)\n got %s\nwant %s", turn.StopReason, turn.Message, want)
	}
	c.Thinking = "disabled"
	turn = must(t)(c.ToolResult("done"))
	if want := `{"role":"assistant","content":[{"type":"text","text":"t answer 2."}]}`; string(turn.Message) != want {
		t.Errorf("without thinking\n got %s\nwant %s", turn.Message, want)
	}
}

func TestTaggedValidatesNothing(t *testing.T) {
	up := newUpstream(t, "t", Tagged)
	c := NewConversation(up.URL(), "session-1")
	c.Messages = append(c.Messages,
		json.RawMessage(`{"role":"user","content":"hi"}`),
		json.RawMessage(`{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"thinking","thinking":"x","signature":"forged"},{"type":"redacted_thinking","data":"forged"}]}`),
		json.RawMessage(`{"role":"user","content":""}`))
	body := c.Body()
	must(t)(c.Send())
	if got := up.Requests()[0]; !bytes.Equal(got.Body, body) || got.Status != http.StatusOK {
		t.Errorf("recorded %d %s", got.Status, got.Body)
	}
}

func TestFineChunks(t *testing.T) {
	for _, tt := range []struct {
		s     string
		phase int
		want  []string
	}{
		{"", 0, nil},
		{"ab", 0, []string{"ab"}},
		{"abcdefghijklm", 0, []string{"abc", "defg", "hijkl", "m"}},
		{"abcdefghijklm", 1, []string{"abcd", "efghi", "jkl", "m"}},
		{"abcdefghijklm", 5, []string{"abcde", "fgh", "ijkl", "m"}},
		{"é😀ab😀😀é", 0, []string{"é😀a", "b😀😀é"}},
	} {
		got := fineChunks(tt.s, tt.phase)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
			t.Errorf("fineChunks(%q, %d) = %q, want %q", tt.s, tt.phase, got, tt.want)
		}
	}
}
