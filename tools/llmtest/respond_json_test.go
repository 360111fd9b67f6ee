package llmtest

import (
	"bytes"
	"fmt"
	"testing"
)

func TestJSONResponse(t *testing.T) {
	for _, gzipOn := range []bool{false, true} {
		t.Run(fmt.Sprint("gzip=", gzipOn), func(t *testing.T) {
			up := newUpstream(t, "a", Strict)
			up.SetGzip(gzipOn)
			c := NewConversation(up.URL(), "session-1")
			c.Stream, c.ShowThinking = false, true
			turn := must(t)(c.Say("hi [redacted]"))
			in := len(up.Requests()[0].Body) / 4
			sig, data := field(t, c, 1, 0, "signature"), field(t, c, 1, 1, "data")
			want := `{"id":"msg_a_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
				`{"type":"thinking","thinking":"a thinks #1: \"plan\" \u003cb\u003eé😀\nstep 2","signature":"` + sig + `"},` +
				`{"type":"redacted_thinking","data":"` + data + `"},{"type":"text","text":"a answer 1."}],` +
				fmt.Sprintf(`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"output_tokens":12}}`, in)
			if string(turn.Body) != want {
				t.Errorf("body\n got %s\nwant %s", turn.Body, want)
			}
			if got := turn.Header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			isGzip := bytes.HasPrefix(turn.Raw, []byte{0x1f, 0x8b})
			if enc := turn.Header.Get("Content-Encoding"); isGzip != gzipOn || (enc == "gzip") != gzipOn {
				t.Errorf("Content-Encoding %q, gzip magic %v", enc, isGzip)
			}
			wantMsg := `{"role":"assistant","content":[{"type":"thinking","thinking":"a thinks #1: \"plan\" <b>é😀\nstep 2","signature":"` + sig +
				`"},{"type":"redacted_thinking","data":"` + data + `"},{"type":"text","text":"a answer 1."}]}`
			if string(turn.Message) != wantMsg {
				t.Errorf("message\n got %s\nwant %s", turn.Message, wantMsg)
			}
			if turn.StopReason != "end_turn" {
				t.Errorf("stop_reason %q", turn.StopReason)
			}
			must(t)(c.Say("again"))
		})
	}
}

func TestGzipCoversErrorsButNotStreams(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	up.SetGzip(true)
	c := NewConversation(up.URL(), "session-1")
	turn := must(t)(c.Say("a stream"))
	if enc := turn.Header.Get("Content-Encoding"); enc != "" {
		t.Errorf("stream with Content-Encoding %q", enc)
	}
	c.Messages = append(c.Messages, []byte(`{"role":"user","content":""}`))
	turn, err := c.Send()
	wantInvalid(t, turn, err, "messages.2: all messages must have non-empty content except for the optional final assistant message")
	if !bytes.HasPrefix(turn.Raw, []byte{0x1f, 0x8b}) || turn.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("error body not gzipped: %q", turn.Raw)
	}
	c.Header.Set("Accept-Encoding", "br;q=1, gzip;q=0, *")
	turn, err = c.Send()
	wantInvalid(t, turn, err, "messages.2: all messages must have non-empty content except for the optional final assistant message")
	if !bytes.Equal(turn.Raw, turn.Body) || turn.Header.Get("Content-Encoding") != "" {
		t.Errorf("gzip sent though refused: %q", turn.Raw)
	}
}

func TestAcceptsGzip(t *testing.T) {
	tests := []struct {
		values []string
		want   bool
	}{
		{nil, false},
		{[]string{"gzip, deflate, br, zstd"}, true},
		{[]string{"identity"}, false},
		{[]string{"br", "GZIP"}, true},
		{[]string{"gzip;q=0"}, false},
		{[]string{"gzip ; q=0.5"}, true},
		{[]string{"*"}, true},
		{[]string{"*;q=0"}, false},
		{[]string{"gzip;q=0, *"}, false},
		{[]string{"br, *;q=0.1"}, true},
	}
	for _, tt := range tests {
		if got := acceptsGzip(tt.values); got != tt.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", tt.values, got, tt.want)
		}
	}
}
