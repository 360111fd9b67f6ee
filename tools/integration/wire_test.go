package integration

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// TestStreamReachesTheClientUnbuffered holds the upstream's stream right
// after message_start until the client has read its first byte: a gateway
// that buffered the stream would keep the client waiting until the hold's
// safety timeout.
func TestStreamReachesTheClientUnbuffered(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	anthropic := g.upstreams["anthropic"]
	c := g.conversation("unbuffered")
	c.OnFirstByte = anthropic.HoldStream()
	okTurns(t)(c.Say("stream to me"))
	if lastRequest(t, anthropic).HoldTimedOut {
		t.Fatal("the first event reached the client only after the upstream finished: the stream was buffered")
	}
}

// TestGzipJSONResponsesAreObserved answers non-streaming requests with gzip:
// blocks must still be registered (a later return to the backend keeps
// them), and the client still gets gzip.
func TestGzipJSONResponsesAreObserved(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	anthropic := g.upstreams["anthropic"]
	anthropic.SetGzip(true)
	c, ok := g.session("gzip")
	c.Stream = false
	mixed(t, g, c)
	turn := ok(c.Say("on anthropic, gzipped"))
	if got := turn.Header.Get("Content-Encoding"); got != "gzip" {
		t.Fatalf("client got Content-Encoding %q, want gzip", got)
	}
	if got := lastRequest(t, anthropic).Header.Get("Accept-Encoding"); got != "gzip" {
		t.Errorf("upstream was asked for %q, want only gzip", got)
	}
	ok(c.Say("again"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, anthropic).Body), historyBlocks(c)[1:2])
}

func TestStreamsAskForIdentity(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	okTurns(t)(g.conversation("identity").Say("hi"))
	if got := lastRequest(t, g.upstreams["anthropic"]).Header.Get("Accept-Encoding"); got != "identity" {
		t.Fatalf("streaming request asked the upstream for %q, want identity", got)
	}
}

func TestOversizedBodyGets413(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic", withHandler("max_body_size 4KiB"))
	c := g.conversation("too-large")
	turn, err := c.Say(strings.Repeat("long prompt ", 1000))
	if err != nil {
		t.Fatal(err)
	}
	if turn.Status != http.StatusRequestEntityTooLarge || turn.ErrorType != "request_too_large" {
		t.Fatalf("status %d type %q, want 413 request_too_large", turn.Status, turn.ErrorType)
	}
	if n := len(g.upstreams["anthropic"].Requests()); n != 0 {
		t.Fatalf("upstream received %d requests", n)
	}
}

func TestInvalidJSONIsForwardedUntouched(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "anthropic")
	body := []byte(`{"messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"s"}]}],` + "\x01}")
	resp, err := (&http.Client{Transport: g.transport}).Post(g.url()+"/v1/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := lastRequest(t, g.upstreams["anthropic"]).Body; !bytes.Equal(got, body) {
		t.Fatalf("upstream received %q, want the original bytes", got)
	}
}

func TestCountTokensIsRewrittenButCountsNoSwitch(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	anthropic := g.upstreams["anthropic"]
	c := mixed(t, g, g.conversation("count-tokens"))
	switches := g.stats().Switches
	turn, err := c.CountTokens()
	if err != nil || turn.Status != http.StatusOK {
		t.Fatalf("count_tokens: %v, %+v", err, turn)
	}
	req := lastRequest(t, anthropic)
	if !strings.HasSuffix(req.Path, "/count_tokens") {
		t.Fatalf("last upstream request went to %s", req.Path)
	}
	assertBlocks(t, thinkingBlocks(t, req.Body), nil)
	if got := g.stats().Switches; got != switches {
		t.Fatalf("count_tokens moved the switch count from %d to %d", switches, got)
	}
}

// TestLogsReportWithoutSecrets runs a switch at debug level and checks the
// events and their fields, and that neither the API key, nor the bearer
// token, nor the session id (however short), nor any message or thinking
// text reached the log.
func TestLogsReportWithoutSecrets(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm")
	c, ok := g.session("SESSION-SECRET-111")
	c.ShowThinking = true
	c.Header.Set("Authorization", "Bearer secret-bearer-token")
	ok(c.Say("a private question"))
	g.use("anthropic")
	ok(c.Say("another private question"))

	switches := g.logEvents("thinking.backend_switch")
	if len(switches) != 1 || switches[0]["from"] != "glm" || switches[0]["to"] != "anthropic" || switches[0]["conversation"] != hashedSession("SESSION-SECRET-111") {
		t.Errorf("backend_switch events = %v", switches)
	}
	handled := g.logEvents("thinking.block_handled")
	if len(handled) != 1 || handled[0]["stripped"] != float64(1) || handled[0]["backend"] != "anthropic" {
		t.Errorf("block_handled events = %v", handled)
	}
	if len(g.logEvents("thinking.block_observed")) < 2 || len(g.logEvents("thinking.block_decision")) < 1 {
		t.Error("per-block debug events missing")
	}
	log := string(g.logBytes())
	for _, secret := range []string{"sk-test", "secret-bearer-token", "SESSION-SECRET-111", "private question", "thinks #"} {
		if i := strings.Index(log, secret); i >= 0 {
			line := log[strings.LastIndexByte(log[:i], '\n')+1:]
			line, _, _ = strings.Cut(line, "\n")
			t.Errorf("log contains %q: %.600s", secret, line)
		}
	}
}

// TestPlaceholders reads the counts through a deferred header directive, as
// an access log format would read them.
func TestPlaceholders(t *testing.T) {
	g := newGateway(t, anthropicAndGLM, "glm", func(g *gateway) {
		g.Extra = "header {\n\t\tdefer\n\t\tX-Counts \"{http.llm_thinking.backend} {http.llm_thinking.kept}/{http.llm_thinking.stripped}/{http.llm_thinking.converted}\"\n\t}"
	})
	ok := okTurns(t)
	c := mixed(t, g, g.conversation("placeholders"))
	ok(c.Say("first on anthropic"))
	turn := ok(c.Say("second on anthropic"))
	if got := turn.Header.Get("X-Counts"); got != "anthropic 1/1/0" {
		t.Fatalf("X-Counts = %q, want \"anthropic 1/1/0\"", got)
	}
}
