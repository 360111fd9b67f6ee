package commandtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestSwitchBackendAndUpstream switches a Caddyfile.example-like site from
// anthropic to glm on another upstream, in one PATCH, and the next request
// reaches that upstream with exactly the blocks it may see; then back to
// anthropic by name alone, which gets its own blocks back byte for byte.
func TestSwitchBackendAndUpstream(t *testing.T) {
	anthropic, glm, newGLM := upstream(t, "anthropic", llmtest.Strict), upstream(t, "glm", llmtest.Lenient), upstream(t, "glm2", llmtest.Lenient)
	site := gatewaytest.Site{
		Upstreams: map[string]string{"anthropic": anthropic.HostPort(), "glm": glm.HostPort()},
		Handler:   "backend {vars.llm_backend}\nregistry switch_test\npersist off",
		Active:    "anthropic",
	}
	c, transport := converse(t, site, "switch-test")
	say(t, c, "hello")
	say(t, c, "tell me more")
	own := llmtest.ThinkingBlocks(c.Messages)
	if len(own) != 2 {
		t.Fatalf("anthropic produced %d thinking blocks, want 2", len(own))
	}

	rec := newRecorder(t)
	var out string
	err := server.Change(site, func() (err error) {
		out, err = llmThinking(t, "switch", "--address", rec.addr(), "glm", newGLM.HostPort())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("switched /config/apps/http/servers/srv0/routes/0\n  backend:   anthropic -> glm (vars llm_backend)\n  upstreams: %s -> %s\n", glm.HostPort(), newGLM.HostPort())
	if out != want {
		t.Errorf("switch printed\n%s\nwant\n%s", out, want)
	}
	if got, want := rec.seen(), []string{"GET /config/", "PATCH /config/apps/http/servers/srv0/routes/0"}; !slices.Equal(got, want) {
		t.Errorf("admin API requests %q, want %q: one read, one change", got, want)
	}

	// Connections opened before the switch belong to the old config's server.
	transport.CloseIdleConnections()
	say(t, c, "now on glm")
	if n := len(glm.Requests()); n != 0 {
		t.Errorf("the old glm upstream received %d requests, want none", n)
	}
	reqs := newGLM.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the new glm upstream received %d requests, want 1", len(reqs))
	}
	assertBlocks(t, reqs[0].Body, nil)

	err = server.Change(site, func() (err error) {
		out, err = llmThinking(t, "switch", "--address", adminAddr, "anthropic")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf("switched /config/apps/http/servers/srv0/routes/0\n  backend:   glm -> anthropic (vars llm_backend)\n  upstreams: %s (unchanged)\n", anthropic.HostPort())
	if out != want {
		t.Errorf("switch printed\n%s\nwant\n%s", out, want)
	}
	transport.CloseIdleConnections()
	say(t, c, "back on anthropic")
	reqs = anthropic.Requests()
	if len(reqs) != 3 {
		t.Fatalf("anthropic received %d requests, want 3", len(reqs))
	}
	assertBlocks(t, reqs[2].Body, own)

	out, err = llmThinking(t, "status", "--address", adminAddr)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := server.Stats()
	if err != nil {
		t.Fatal(err)
	}
	s := stats["switch_test"]
	want = fmt.Sprintf(`SERVER  ROUTE                                    ID  BACKEND                       MODE   REGISTRY     UPSTREAMS
srv0    /config/apps/http/servers/srv0/routes/0  -   anthropic (vars llm_backend)  strip  switch_test  anthropic: %s; glm: %s

REGISTRY     BLOCKS  CONFIRMED  UNCONFIRMED  CONVERSATIONS  THREADS  SWITCHES  RETRIES  REFUSALS  PERSIST
switch_test  %d       %d          %d            %d              %d        %d         %d        %d         off
`, anthropic.HostPort(), newGLM.HostPort(), s.Blocks, s.Confirmed, s.Unconfirmed, s.Conversations, s.Threads, s.Switches, s.Retries, s.Refusals)
	if out := withoutMemory(t, out); out != want {
		t.Errorf("status printed\n%s\nwant\n%s", out, want)
	}
}

// TestSwitchByIDAndPath switches routes named by @id and by config path,
// and writes back exactly what changed.
func TestSwitchByIDAndPath(t *testing.T) {
	loadThreeRoutes(t)
	for _, step := range []struct {
		args []string
		want string
	}{
		{
			[]string{"--route", "@claude", "glm"},
			"switched /config/apps/http/servers/gateway/routes/0 (@id claude)\n  backend:   anthropic -> glm (vars llm_backend)\n  upstreams: 10.0.0.2:443 (unchanged)\n",
		},
		{
			[]string{"--route", "claude", "glm"},
			"nothing to switch in /config/apps/http/servers/gateway/routes/0 (@id claude)\n  backend:   glm (vars llm_backend, unchanged)\n  upstreams: 10.0.0.2:443 (unchanged)\n",
		},
		{
			[]string{"--route", "/config/apps/http/servers/gateway/routes/1/", "ollama", "10.0.0.9:11434"},
			"switched /config/apps/http/servers/gateway/routes/1\n  backend:   (upstream dialed) -> ollama\n  upstreams: 10.0.0.3:11434, 10.0.0.4:11434 -> 10.0.0.9:11434\n",
		},
	} {
		out, err := llmThinking(t, append([]string{"switch", "--address", adminAddr}, step.args...)...)
		if err != nil {
			t.Fatalf("switch %q: %v", step.args, err)
		}
		if out != step.want {
			t.Errorf("switch %q printed\n%s\nwant\n%s", step.args, out, step.want)
		}
	}
	for path, want := range map[string]string{
		"/config/apps/http/servers/gateway/routes/0/handle/0/routes/0/handle": `[{"handler":"vars","llm_backend":"glm"},{"backend":"{http.vars.llm_backend}","handler":"llm_thinking","max_blocks":12345678901,"mode":"convert_to_text","persist":false,"registry":"status_a"}]`,
		"/config/apps/http/servers/gateway/routes/1/handle":                   `[{"backend":"ollama","handler":"llm_thinking","persist":false,"registry":"status_b"},{"handler":"reverse_proxy","transport":{"models":[{"match":"*","model":"qwen3-coder"}],"protocol":"anthropic"},"upstreams":[{"dial":"10.0.0.9:11434"}]}]`,
	} {
		if got := strings.TrimSpace(getConfig(t, path)); got != want {
			t.Errorf("%s is\n%s\nwant\n%s", path, got, want)
		}
	}
}

// TestSwitchRefuses checks every refusal's message, and that a refused
// switch changes nothing.
func TestSwitchRefuses(t *testing.T) {
	loadThreeRoutes(t)
	before := getConfig(t, "/config/")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{
			[]string{"glm"},
			"3 routes have an llm_thinking handler, name one with --route: /config/apps/http/servers/by_header/routes/0, /config/apps/http/servers/gateway/routes/0 (@id claude), /config/apps/http/servers/gateway/routes/1",
		},
		{
			[]string{"--route", "/config/apps/http/servers/gateway", "glm"},
			"/config/apps/http/servers/gateway holds 2 llm_thinking handlers, name one with --route: /config/apps/http/servers/gateway/routes/0 (@id claude), /config/apps/http/servers/gateway/routes/1",
		},
		{
			[]string{"--route", "claude", "ollama"},
			`unknown backend "ollama" for /config/apps/http/servers/gateway/routes/0 (@id claude): its reverse_proxy handlers serve anthropic, zai, glm (chosen by vars llm_backend)`,
		},
		{
			[]string{"--route", "claude", "ollama", "127.0.0.1:11434"},
			`unknown backend "ollama" for /config/apps/http/servers/gateway/routes/0 (@id claude): its reverse_proxy handlers serve anthropic, zai, glm (chosen by vars llm_backend)`,
		},
		{
			[]string{"--route", "/config/apps/http/servers/by_header/routes/0", "glm"},
			"/config/apps/http/servers/by_header/routes/0 chooses its backend per request ({http.request.header.X-Backend}): there is no one backend to switch",
		},
		{
			[]string{"--route", "nosuch", "glm"},
			`--route nosuch: no @id "nosuch" in the config`,
		},
		{
			[]string{"--route", "/config/apps/http/servers/gateway/routes/7", "glm"},
			"--route /config/apps/http/servers/gateway/routes/7: no such path in the config",
		},
		{
			[]string{"--route", "/config/apps/http/servers/gateway/listen", "glm"},
			"no llm_thinking handler in /config/apps/http/servers/gateway/listen",
		},
		{
			[]string{"--route", "claude", "glm", "https://api.z.ai"},
			`upstream "https://api.z.ai": give the address to dial, host:port (the transport, TLS included, stays as configured)`,
		},
		{
			[]string{"--route", "claude", "glm", "10.0.0.2"},
			`upstream "10.0.0.2": give host:port, with one port`,
		},
		{
			[]string{"--route", "claude", "glm", "10.0.0.2:8000-8009"},
			`upstream "10.0.0.2:8000-8009": give host:port, with one port`,
		},
		{
			[]string{"--route", "claude", "glm", "10.0.0.2:x"},
			`upstream "10.0.0.2:x": invalid start port: strconv.ParseUint: parsing "x": invalid syntax`,
		},
		{
			[]string{"--route", "claude", ""},
			"the backend to switch to is empty",
		},
	} {
		out, err := llmThinking(t, append([]string{"switch", "--address", adminAddr}, tc.args...)...)
		if err == nil || err.Error() != tc.want {
			t.Errorf("switch %q: error %v\nwant %s", tc.args, err, tc.want)
		}
		if out != "" {
			t.Errorf("switch %q printed %q, want nothing", tc.args, out)
		}
	}
	if after := getConfig(t, "/config/"); after != before {
		t.Errorf("a refused switch changed the config:\n%s\nwas\n%s", after, before)
	}
}

func TestSwitchWithoutHandler(t *testing.T) {
	loadJSON(t, plainProxy, adminAddr, freePort(t))
	_, err := llmThinking(t, "switch", "--address", adminAddr, "glm")
	if want := "no llm_thinking handler in the config of the Caddy at " + adminAddr; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestSwitchNeedsBackend(t *testing.T) {
	_, err := llmThinking(t, "switch", "--address", adminAddr)
	want := "switch needs the backend to switch to: caddy llm-thinking switch [--route <id|path>] [--address <interface>] <backend> [<upstream>...]"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestUnreachable runs both subcommands against an address where nothing
// listens.
func TestUnreachable(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	want := fmt.Sprintf(`cannot reach Caddy's admin API at %[1]s: performing request: Get "http://%[1]s/config/": dial tcp %[1]s: connect: connection refused (is Caddy running? use --address)`, addr)
	for _, args := range [][]string{{"status"}, {"switch", "glm"}} {
		out, err := llmThinking(t, append(args, "--address", addr)...)
		if err == nil || err.Error() != want {
			t.Errorf("%s: error %v\nwant %s", args[0], err, want)
		}
		if out != "" {
			t.Errorf("%s printed %q, want nothing", args[0], out)
		}
	}
}

// TestAdminAPIRefuses reports an admin API that answers with an error: one
// that checks origins, behind a proxy that passes the command's Origin.
func TestAdminAPIRefuses(t *testing.T) {
	loadThreeRoutes(t)
	rec := newRecorder(t)
	rec.origin = true
	_, err := llmThinking(t, "status", "--address", rec.addr())
	want := fmt.Sprintf("the admin API at %[1]s answered GET /config/ with HTTP 403: client is not allowed to access from origin 'http://%[1]s'", rec.addr())
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestSwitchLosesToAConcurrentChange changes the config between the
// command's read and its write: the write is refused, and the other change
// stays.
func TestSwitchLosesToAConcurrentChange(t *testing.T) {
	loadThreeRoutes(t)
	rec := newRecorder(t)
	rec.afterRead = func() {
		if _, err := adminDo(http.MethodPut, "/config/apps/http/servers/gateway/routes/1/@id", `"local"`); err != nil {
			t.Error(err)
		}
	}
	out, err := llmThinking(t, "switch", "--address", rec.addr(), "--route", "claude", "glm")
	want := "the config changed while switching (another change came between reading and writing it): nothing was changed; run the command again"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	if out != "" {
		t.Errorf("switch printed %q, want nothing", out)
	}
	if got, want := rec.seen(), []string{"GET /config/", "PATCH /config/apps/http/servers/gateway/routes/0"}; !slices.Equal(got, want) {
		t.Errorf("admin API requests %q, want %q", got, want)
	}
	if got := getConfig(t, "/config/apps/http/servers/gateway/routes/0/handle/0/routes/0/handle/0"); got != `{"handler":"vars","llm_backend":"anthropic"}`+"\n" {
		t.Errorf("the route was switched anyway: %s", got)
	}
	if got := getConfig(t, "/id/local/@id"); got != `"local"`+"\n" {
		t.Errorf("the concurrent change is lost: %s", got)
	}
}

// converse loads site and starts a conversation named session through
// it, with the transport of its client, whose idle connections a switch
// of the site's server leaves to close.
func converse(t *testing.T, site gatewaytest.Site, session string) (*llmtest.Conversation, gatewaytest.Transport) {
	t.Helper()
	if err := server.Load(site); err != nil {
		t.Fatal(err)
	}
	transport := gatewaytest.NewTransport()
	t.Cleanup(transport.CloseIdleConnections)
	c := llmtest.NewConversation(server.URLFor(site), session)
	c.Client = &http.Client{Transport: transport, Timeout: 15 * time.Second}
	return c, transport
}

// upstream starts a mock backend for one test.
func upstream(t *testing.T, name string, f llmtest.Flavor) *llmtest.Upstream {
	u := llmtest.NewUpstream(name, f)
	t.Cleanup(u.Close)
	return u
}

// say sends a user turn and fails the test unless it gets a 200.
func say(t *testing.T, c *llmtest.Conversation, text string) {
	t.Helper()
	turn, err := c.Say(text)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Status != http.StatusOK {
		t.Fatalf("%q: status %d: %s: %s", text, turn.Status, turn.ErrorType, turn.ErrorMessage)
	}
}

// assertBlocks checks that a request body carried exactly the thinking
// blocks want, byte for byte and in order.
func assertBlocks(t *testing.T, body []byte, want []json.RawMessage) {
	t.Helper()
	got, err := llmtest.RequestThinkingBlocks(body)
	if err != nil {
		t.Fatalf("request body is not JSON: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("upstream received %d thinking blocks, want %d:\n got %s\nwant %s", len(got), len(want), got, want)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("thinking block %d changed on its way:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}
