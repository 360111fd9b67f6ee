package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// openStream posts a one-message streaming request to up and returns the
// response, whose body the caller reads.
func openStream(t *testing.T, up *Upstream) (*http.Response, int) {
	t.Helper()
	c := NewConversation(up.URL(), "session-1")
	c.Messages = []json.RawMessage{json.RawMessage(`{"role":"user","content":"hi"}`)}
	body := c.Body()
	resp, err := http.Post(up.URL()+"/v1/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, len(body) / 4
}

// readEvent reads one event, up to and including its blank line.
func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var sb strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading an event: %v (so far %q)", err, sb.String())
		}
		sb.WriteString(line)
		if line == "\n" {
			return sb.String()
		}
	}
}

func TestHoldStreamPausesAfterMessageStart(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	release := up.HoldStream()
	resp, in := openStream(t, up)
	br := bufio.NewReader(resp.Body)
	// Reading message_start before release is the proof: were it not
	// flushed on its own, this read would wait for the safety timeout.
	if got, want := readEvent(t, br), messageStart("msg_a_1", in); got != want {
		t.Fatalf("first event %q, want %q", got, want)
	}
	release()
	release()
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(rest), event("ping", `{"type":"ping"}`)) || !strings.HasSuffix(string(rest), event("message_stop", `{"type":"message_stop"}`)) {
		t.Errorf("rest of the stream %q", rest)
	}
	if r := up.Requests()[0]; r.HoldTimedOut || r.Status != http.StatusOK {
		t.Errorf("Received %+v", r)
	}
}

func TestHoldStreamHoldsOnlyTheNextStream(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	release := up.HoldStream()
	c := NewConversation(up.URL(), "session-1")
	c.Stream = false
	must(t)(c.Say("not a stream, not held"))
	c.Stream = true
	c.OnFirstByte = release
	turn := must(t)(c.Say("held until the first byte arrives"))
	c.OnFirstByte = nil
	must(t)(c.Say("not held any more"))
	for i, r := range up.Requests() {
		if r.HoldTimedOut {
			t.Errorf("request %d: hold timed out", i)
		}
	}
	if turn.FirstByte <= 0 {
		t.Errorf("FirstByte %v", turn.FirstByte)
	}
}

func TestHoldStreamReleasedByClose(t *testing.T) {
	up := NewUpstream("a", Strict)
	up.HoldStream()
	resp, _ := openStream(t, up)
	br := bufio.NewReader(resp.Body)
	readEvent(t, br)
	up.Close()
	rest, _ := io.ReadAll(br)
	if !strings.HasSuffix(string(rest), event("message_stop", `{"type":"message_stop"}`)) {
		t.Errorf("rest of the stream %q", rest)
	}
	if up.Requests()[0].HoldTimedOut {
		t.Error("hold timed out")
	}
}

func TestHoldStreamSafetyTimeout(t *testing.T) {
	up := newUpstream(t, "a", Strict)
	up.holdTimeout = time.Millisecond
	up.HoldStream()
	c := NewConversation(up.URL(), "session-1")
	must(t)(c.Say("nobody releases this"))
	if !up.Requests()[0].HoldTimedOut {
		t.Error("HoldTimedOut is false")
	}
}
