package modelname

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

const (
	start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"glm-4.6\",\"content\":[],\"usage\":{\"model\":\"x\"}}}\n\n"
	ping  = "event: ping\ndata: {\"type\": \"ping\"}\n\n"
	rest  = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"model\\\":\\\"glm-4.6\"}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
)

// rewrite feeds stream to an SSE in the given pieces and returns what it
// wrote and the upstream model it read.
func rewrite(t *testing.T, requested string, pieces ...string) (string, string) {
	t.Helper()
	var out bytes.Buffer
	s := NewSSE(&out, requested)
	for _, p := range pieces {
		if n, err := s.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out.String(), s.Upstream()
}

func TestSSERewritesOnlyTheModelOfMessageStart(t *testing.T) {
	tests := []struct {
		name, in, want, upstream string
	}{
		{"message_start first", start + rest, strings.Replace(start, `"glm-4.6"`, `"claude-sonnet-4-5"`, 1) + rest, "glm-4.6"},
		{"after a ping", ping + start + rest, ping + strings.Replace(start, `"glm-4.6"`, `"claude-sonnet-4-5"`, 1) + rest, "glm-4.6"},
		{"CRLF lines", strings.ReplaceAll(start+rest, "\n", "\r\n"), strings.ReplaceAll(strings.Replace(start, `"glm-4.6"`, `"claude-sonnet-4-5"`, 1)+rest, "\n", "\r\n"), "glm-4.6"},
		{"already the requested model", strings.Replace(start, "glm-4.6", "claude-sonnet-4-5", 1) + rest, strings.Replace(start, "glm-4.6", "claude-sonnet-4-5", 1) + rest, "claude-sonnet-4-5"},
		{"no message_start", rest, rest, ""},
		{"cut before the first event ends", start[:40], start[:40], ""},
		{"not JSON", "data: [DONE]\n\n" + rest, "data: [DONE]\n\n" + rest, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Whole, and cut in two at every byte, with and without an
			// empty Write at the cut: the same output.
			got, up := rewrite(t, "claude-sonnet-4-5", tt.in)
			if got != tt.want || up != tt.upstream {
				t.Fatalf("whole:\n got %q (upstream %q)\nwant %q (upstream %q)", got, up, tt.want, tt.upstream)
			}
			for i := range len(tt.in) {
				if got, up := rewrite(t, "claude-sonnet-4-5", tt.in[:i], tt.in[i:]); got != tt.want || up != tt.upstream {
					t.Fatalf("cut at %d:\n got %q (upstream %q)\nwant %q", i, got, up, tt.want)
				}
				if got, up := rewrite(t, "claude-sonnet-4-5", tt.in[:i], "", tt.in[i:]); got != tt.want || up != tt.upstream {
					t.Fatalf("cut at %d by an empty Write:\n got %q (upstream %q)\nwant %q", i, got, up, tt.want)
				}
			}
		})
	}
}

// countingWriter counts the Writes it gets.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

func TestSSEPassesEverythingAfterMessageStartAtOnce(t *testing.T) {
	var out countingWriter
	s := NewSSE(&out, "m")
	s.Write([]byte(start))
	if out.writes != 1 {
		t.Fatalf("message_start held back: %d writes", out.writes)
	}
	chunk := []byte(rest[:17]) // not even a whole line
	s.Write(chunk)
	if out.writes != 2 || !bytes.HasSuffix(out.Bytes(), chunk) {
		t.Fatal("a piece after message_start was held back")
	}
}

func TestSSEBoundsWhatItHolds(t *testing.T) {
	var out bytes.Buffer
	s := NewSSE(&out, "m")
	huge := "data: " + strings.Repeat("x", maxHeld) // no line end, ever
	s.Write([]byte(huge))
	if out.Len() != len(huge) {
		t.Fatalf("held %d bytes past the bound", len(huge)-out.Len())
	}
}

type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, errors.New("client gone") }

func TestSSEReportsWriteErrors(t *testing.T) {
	s := NewSSE(failingWriter{}, "m")
	if _, err := s.Write([]byte(start)); err == nil {
		t.Fatal("the error of the writer was lost")
	}
}

func TestRewriteJSON(t *testing.T) {
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"glm-4.6","content":[{"type":"text","text":"\"model\":\"x\""}]}`
	out, up := RewriteJSON([]byte(body), "claude-sonnet-4-5")
	if want := strings.Replace(body, `"glm-4.6"`, `"claude-sonnet-4-5"`, 1); string(out) != want || up != "glm-4.6" {
		t.Fatalf("got %s (upstream %q)", out, up)
	}
	same := []byte(`{"type":"message","content":[]}`)
	if out, up := RewriteJSON(same, "m"); &out[0] != &same[0] || up != "" {
		t.Fatal("a body without a model was copied or changed")
	}
	if out, _ := RewriteJSON([]byte(`{"model":"m"`), "x"); string(out) != `{"model":"m"` {
		t.Fatalf("broken JSON was edited: %s", out)
	}
}

func FuzzSSE(f *testing.F) {
	f.Add([]byte(start+rest), uint8(7))
	f.Add([]byte(ping+start), uint8(200))
	f.Add([]byte("data: {\"type\":\"message_start\",\"message\":{\"model\":\"a\\u0041\"}}\r\r"+rest), uint8(3))
	f.Fuzz(func(t *testing.T, stream []byte, cut uint8) {
		at := int(cut) % (len(stream) + 1)
		var whole, pieces bytes.Buffer
		a, b := NewSSE(&whole, "req"), NewSSE(&pieces, "req")
		a.Write(stream)
		a.Close()
		b.Write(stream[:at])
		b.Write(stream[at:])
		b.Close()
		if !bytes.Equal(whole.Bytes(), pieces.Bytes()) || a.Upstream() != b.Upstream() {
			t.Fatalf("cut at %d changed the output:\n%q\n%q", at, whole.Bytes(), pieces.Bytes())
		}
		// Only a model literal may change: with the upstream's name put
		// back, the output is the input.
		if a.rewrote {
			if !bytes.Contains(whole.Bytes(), []byte(`"req"`)) {
				t.Fatalf("message_start read, model not rewritten: %q", whole.Bytes())
			}
		} else if !bytes.Equal(whole.Bytes(), stream) {
			t.Fatalf("no message_start read, yet the stream changed:\n%q\n%q", stream, whole.Bytes())
		}
	})
}
