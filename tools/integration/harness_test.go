// Package integration runs real Caddy, in process, with llm_thinking before
// reverse_proxy, against the mock backends of package llmtest. Every config
// is loaded through the admin API's POST /load, the command users switch
// backends with. The tests share one Caddy and its admin port, so they run
// one after another.
package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// adminAddr is the admin API of the Caddy all tests share.
var adminAddr string

// server is the Caddy all tests share.
var server *gatewaytest.Caddy

func TestMain(m *testing.M) {
	gatewaytest.Main(m, func(c *gatewaytest.Caddy) { server, adminAddr = c, c.Admin() })
}

// gateway is one test's view of the running Caddy: its upstreams by name and
// the site config it loads.
type gateway struct {
	gatewaytest.Site
	t         *testing.T
	upstreams map[string]*llmtest.Upstream
	// chats are the chat-completions upstreams, reached through
	// transport openai (see withChat).
	chats map[string]*llmtest.ChatUpstream
	// geminis are the Gemini upstreams, reached through transport gemini
	// (see withGemini).
	geminis map[string]*llmtest.GeminiUpstream
	// transport serves this test's clients. load drops its idle
	// connections, which the reload closes on the server side.
	transport gatewaytest.Transport
}

// newGateway starts the named mock upstreams and loads a config routing to
// active, after applying the options. Every test gets its own registry, so
// tests cannot see each other's blocks.
func newGateway(t *testing.T, flavors map[string]llmtest.Flavor, active string, options ...func(*gateway)) *gateway {
	t.Helper()
	port, err := llmtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	g := &gateway{
		t:         t,
		upstreams: make(map[string]*llmtest.Upstream),
		transport: gatewaytest.NewTransport(),
		Site: gatewaytest.Site{
			Port:      port,
			Upstreams: make(map[string]string),
			Handler:   "backend {vars.llm_backend}\nregistry " + registryName(t),
			Active:    active,
			LogFile:   filepath.Join(t.TempDir(), "caddy.log"),
			Storage:   "file_system " + t.TempDir(),
		},
	}
	t.Cleanup(g.transport.CloseIdleConnections)
	t.Cleanup(g.checkLogClean)
	// Cleanups run last first: the registry stops, writing what it has
	// left, before its storage directory is removed.
	t.Cleanup(func() {
		if err := server.Unload(); err != nil {
			t.Errorf("unload the config: %v", err)
		}
	})
	for name, f := range flavors {
		u := llmtest.NewUpstream(name, f)
		t.Cleanup(u.Close)
		g.upstreams[name] = u
		g.Upstreams[name] = u.HostPort()
	}
	for _, o := range options {
		o(g)
	}
	// A port that was free a moment ago can be taken meanwhile (as the
	// local end of some connection): pick another then.
	for attempt := 1; ; attempt++ {
		err := server.Load(g.Site)
		if err == nil || attempt == 5 || !strings.Contains(err.Error(), "address already in use") {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		if g.Port, err = llmtest.FreePort(); err != nil {
			t.Fatal(err)
		}
	}
	g.transport.CloseIdleConnections()
	return g
}

// byHeader routes by the X-Backend request header, which the backend
// placeholder reads too: one config serves both backends, no reload needed.
func byHeader(g *gateway) {
	g.ByHeader = true
	g.Handler = "backend {http.request.header.X-Backend}\nregistry " + registryName(g.t)
}

// withHandler adds subdirectives to the llm_thinking block.
func withHandler(lines string) func(*gateway) {
	return func(g *gateway) { g.Handler += "\n" + lines }
}

// plainProxy leaves llm_thinking out of the config.
func plainProxy(g *gateway) { g.Handler = "" }

func registryName(t *testing.T) string {
	return strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
}

// load posts the current config to the admin API, as `caddy reload` does.
func (g *gateway) load() {
	g.t.Helper()
	if err := server.Load(g.Site); err != nil {
		cf, _ := server.Caddyfile(g.Site)
		g.t.Fatalf("%v\n%s", err, cf)
	}
	g.transport.CloseIdleConnections()
}

// use switches the gateway to another backend with a reload.
func (g *gateway) use(backend string) {
	g.t.Helper()
	g.Active = backend
	g.load()
}

// url is the gateway's base URL for clients.
func (g *gateway) url() string { return server.URLFor(g.Site) }

// conversation starts a Claude-Code-like conversation through the gateway.
func (g *gateway) conversation(session string) *llmtest.Conversation {
	c := llmtest.NewConversation(g.url(), session)
	c.Client = &http.Client{Transport: g.transport, Timeout: 15 * time.Second}
	return c
}

// session starts a conversation through the gateway, with the check its
// turns must pass (see okTurns).
func (g *gateway) session(name string) (*llmtest.Conversation, func(*llmtest.Turn, error) *llmtest.Turn) {
	return g.conversation(name), okTurns(g.t)
}

// stats reads this test's registry statistics from the admin endpoint.
func (g *gateway) stats() adminapi.RegistryStats {
	g.t.Helper()
	all, err := server.Stats()
	if err != nil {
		g.t.Fatalf("GET /llm_thinking/stats: %v", err)
	}
	return all[registryName(g.t)]
}

// logEvents returns the gateway's log entries with the given message.
func (g *gateway) logEvents(msg string) []map[string]any {
	g.t.Helper()
	var events []map[string]any
	for _, line := range bytes.Split(g.logBytes(), []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(line, &e) == nil && e["msg"] == msg {
			events = append(events, e)
		}
	}
	return events
}

// checkLogClean fails the test if the gateway logged a recovered panic or
// an internal error of llm_thinking.
func (g *gateway) checkLogClean() {
	for _, line := range bytes.Split(g.logBytes(), []byte("\n")) {
		var e map[string]any
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		msg, _ := e["msg"].(string)
		if msg == "thinking.internal_error" || strings.Contains(strings.ToLower(msg), "panic") {
			g.t.Errorf("gateway logged %q: %s", msg, line)
		}
	}
}

func (g *gateway) logBytes() []byte {
	b, err := os.ReadFile(g.LogFile)
	if err != nil && !os.IsNotExist(err) {
		g.t.Fatalf("reading caddy log: %v", err)
	}
	return b
}

// okTurns returns a check that fails t unless a turn succeeded with 200:
// ok := okTurns(t); ok(c.Say("hello")).
func okTurns(t *testing.T) func(*llmtest.Turn, error) *llmtest.Turn {
	return func(turn *llmtest.Turn, err error) *llmtest.Turn {
		t.Helper()
		if err != nil {
			t.Fatalf("turn failed: %v", err)
		}
		if turn.Status != http.StatusOK {
			t.Fatalf("status %d: %s: %s", turn.Status, turn.ErrorType, turn.ErrorMessage)
		}
		return turn
	}
}

// send posts body to the gateway at path with the header h and returns the
// answer's status, header and body, read whole.
func (g *gateway) send(t *testing.T, path string, h http.Header, body []byte) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, g.url()+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h.Clone()
	return llmtest.Exchange(t, &http.Client{Transport: g.transport, Timeout: 15 * time.Second}, req)
}

// mockUpstream is any of the mock backends: what they received.
type mockUpstream interface{ Requests() []llmtest.Received }

// refusals counts the 400s an upstream answered.
func refusals(u mockUpstream) int {
	n := 0
	for _, r := range u.Requests() {
		if r.Status == http.StatusBadRequest {
			n++
		}
	}
	return n
}

// failures counts the answers of an upstream that were not 2xx.
func failures(u mockUpstream) int {
	n := 0
	for _, r := range u.Requests() {
		if r.Status >= http.StatusBadRequest {
			n++
		}
	}
	return n
}

// refusedFirstOnly fails the test unless the first request the upstream
// called name got is the only one it refused, with status and, unless
// message is "", message. It returns the requests after that one, which
// the gateway sent knowing what the refusal taught it.
func refusedFirstOnly(t *testing.T, name string, u mockUpstream, status int, message string) []llmtest.Received {
	t.Helper()
	reqs := u.Requests()
	if n := failures(u); n != 1 || reqs[0].Status != status || message != "" && reqs[0].ErrorMessage != message {
		t.Fatalf("%s refused %d times (first: %d %q), want once, the first, with %d %q", name, n, reqs[0].Status, reqs[0].ErrorMessage, status, message)
	}
	return reqs[1:]
}

// refusalsAfterRestart restarts Caddy, has c say one more thing, and fails
// the test unless the upstream called name refused want times in all: what
// the gateway learned from them outlived the restart.
func refusalsAfterRestart(t *testing.T, g *gateway, c *llmtest.Conversation, name string, u mockUpstream, want int) {
	t.Helper()
	restartCaddy(t, g)
	okTurns(t)(c.Say("after a restart"))
	if n := failures(u); n != want {
		t.Fatalf("after a restart, %s refused %d times in all, want %d", name, n, want)
	}
}

// assertAccepted fails for every request the upstream called name
// answered with anything but a 200.
func assertAccepted(t *testing.T, name string, u mockUpstream) {
	t.Helper()
	for i, r := range u.Requests() {
		if r.Status != http.StatusOK {
			t.Errorf("%s refused request %d: %d %s", name, i+1, r.Status, r.ErrorMessage)
		}
	}
}

// mappedError is an error of the Messages API, as the client gets it for
// an upstream's.
type mappedError struct {
	status       int
	typ, message string
}

// testErrorMapped says hello, streamed and not, through the gateway start
// builds and whose upstream it scripts to fail: the client must get want.
func testErrorMapped(t *testing.T, want mappedError, start func(t *testing.T) *gateway) {
	for _, stream := range []bool{true, false} {
		t.Run(fmt.Sprint(want.status, " stream ", stream), func(t *testing.T) {
			c := start(t).conversation("errors")
			c.Stream = stream
			turn, err := c.Say("hello")
			if err != nil {
				t.Fatal(err)
			}
			if turn.Status != want.status || turn.ErrorType != want.typ || turn.ErrorMessage != want.message {
				t.Errorf("got %d %s %q, want %d %s %q", turn.Status, turn.ErrorType, turn.ErrorMessage, want.status, want.typ, want.message)
			}
		})
	}
}

// toolResultAbsorbsRefusal goes round a tool loop through the gateway,
// with refuse scripting its upstream's refusal of the tool result's
// request: the client must get the answer, with the warning header, the
// gateway having replayed the request once.
func toolResultAbsorbsRefusal(t *testing.T, g *gateway, refuse func()) {
	t.Helper()
	ok := okTurns(t)
	c := g.conversation("refusal")
	ok(c.Say("[tool] list the files"))
	refuse()
	turn := ok(c.ToolResult("file1"))
	if turn.Header.Get("X-LLM-Thinking-Warning") == "" {
		t.Error("no warning header on the replayed answer")
	}
	if st := g.stats(); st.Retries != 1 {
		t.Errorf("%d retries, want 1", st.Retries)
	}
}

// jsonHeader is the header of a client that says no more than that it
// sends JSON.
var jsonHeader = http.Header{"Content-Type": {"application/json"}}

// lastRequest returns the request the upstream received last.
func lastRequest(t *testing.T, u mockUpstream) llmtest.Received {
	t.Helper()
	reqs := u.Requests()
	if len(reqs) == 0 {
		t.Fatal("upstream received nothing")
	}
	return reqs[len(reqs)-1]
}
