package integration

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestRewrittenStreamsReachTheClientUnbuffered holds a stream that both
// rewriters (think tags, model name) work on, first right after
// message_start, then after its last block: the client must read what came
// before each hold while the upstream waits, or the hold times out.
func TestRewrittenStreamsReachTheClientUnbuffered(t *testing.T) {
	g := newGateway(t, map[string]llmtest.Flavor{"tagged": llmtest.Tagged}, "tagged",
		withHandler("think_tags on\nresponse_model requested"))
	tagged := g.upstreams["tagged"]
	tagged.AnswerAs("qwen3-32b")
	c, ok := g.session("unbuffered-rewrite")
	c.OnFirstByte = tagged.HoldStream()
	ok(c.Say("stream to me"))
	c.OnFirstByte = nil
	if lastRequest(t, tagged).HoldTimedOut {
		t.Fatal("message_start reached the client only after the upstream finished: the stream was buffered")
	}

	// Both blocks made of the text must reach the client before the
	// message ends.
	release := tagged.HoldStreamAfterBlocks()
	defer release()
	c.Messages = append(c.Messages, []byte(`{"role":"user","content":[{"type":"text","text":"more"}]}`))
	req, err := http.NewRequest(http.MethodPost, g.url()+"/v1/messages?beta=true", strings.NewReader(string(c.Body())))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Claude-Code-Session-Id", c.SessionID)
	resp, err := c.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	var seen []string
	for len(seen) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before its blocks: %v", err)
		}
		if strings.HasPrefix(line, "data: {\"type\":\"content_block_stop\"") {
			seen = append(seen, strings.TrimSpace(line))
		}
	}
	release()
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if lastRequest(t, tagged).HoldTimedOut {
		t.Fatal("the blocks reached the client only after the upstream finished the message")
	}
	if !strings.Contains(string(rest), "event: message_stop") {
		t.Errorf("the stream did not end with message_stop:\n%s", rest)
	}
	want := []string{`data: {"type":"content_block_stop","index":0}`, `data: {"type":"content_block_stop","index":1}`}
	if seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("block stops %q, want %q", seen, want)
	}
}
