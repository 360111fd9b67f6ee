// Package integration runs real Caddy, in process, with llm_thinking before
// reverse_proxy, against the mock backends of internal/llmtest. Every config
// is loaded through the admin API's POST /load, the command users switch
// backends with. The tests share one Caddy and its admin port, so they run
// one after another.
package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/llmtest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
)

// adminAddr is Caddy's admin endpoint for the tests.
const adminAddr = "localhost:2999"

// adminClient talks to the admin endpoint on a fresh connection each time.
var adminClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// gatewayPort is where the site under test listens; chosen once per run.
var gatewayPort int

func TestMain(m *testing.M) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	gatewayPort = l.Addr().(*net.TCPAddr).Port
	l.Close()
	// The same admin config as every test Caddyfile, so that loads never
	// restart the admin server.
	boot := fmt.Sprintf(`{"admin":{"listen":%q,"config":{"persist":false}},"logging":{"logs":{"default":{"level":"ERROR"}}}}`, adminAddr)
	if err := caddy.Load([]byte(boot), true); err != nil {
		fmt.Fprintln(os.Stderr, "starting caddy:", err)
		os.Exit(1)
	}
	code := m.Run()
	caddy.Stop()
	os.Exit(code)
}

// gateway is one test's view of the running Caddy: the upstreams it routes
// to by name and the Caddyfile it loads.
type gateway struct {
	t         *testing.T
	upstreams map[string]*llmtest.Upstream
	logFile   string
	// transport serves this test's clients. A reload gracefully closes the
	// idle connections of the old server, so load drops them on this side
	// too rather than racing the close.
	transport retryingTransport
	// Handler holds the llm_thinking block's subdirectives; empty means the
	// site has no llm_thinking at all (plain reverse_proxy).
	Handler string
	// Routing picks the upstream: "vars" (a `vars llm_backend` line that a
	// reload changes) or "header" (the X-Backend request header).
	Routing string
	Active  string
	// Extra holds more directives for the site block.
	Extra string
}

// newGateway starts the named mock upstreams and loads a config routing to
// active, after applying the options. Every test gets its own registry, so
// tests cannot see each other's blocks.
func newGateway(t *testing.T, flavors map[string]llmtest.Flavor, active string, options ...func(*gateway)) *gateway {
	t.Helper()
	g := &gateway{
		t:         t,
		upstreams: make(map[string]*llmtest.Upstream),
		logFile:   filepath.Join(t.TempDir(), "caddy.log"),
		transport: retryingTransport{&http.Transport{}},
		Handler:   "backend {vars.llm_backend}\nregistry " + registryName(t),
		Routing:   "vars",
		Active:    active,
	}
	t.Cleanup(g.transport.CloseIdleConnections)
	t.Cleanup(g.checkLogClean)
	for name, f := range flavors {
		u := llmtest.NewUpstream(name, f)
		t.Cleanup(u.Close)
		g.upstreams[name] = u
	}
	for _, o := range options {
		o(g)
	}
	g.load()
	return g
}

// byHeader routes by the X-Backend request header, which the backend
// placeholder reads too: one config serves both backends, no reload needed.
func byHeader(g *gateway) {
	g.Routing = "header"
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

var caddyfileTemplate = template.Must(template.New("caddyfile").Parse(`{
	admin {{.Admin}}
	persist_config off
	auto_https off
	log {
		output file {{.LogFile}}
		level DEBUG
		# As in Caddyfile.example: Caddy redacts Authorization in its logs,
		# not the x-api-key header that reverse_proxy's debug log shows.
		format filter {
			wrap json
			request>headers>X-Api-Key delete
		}
	}
}

http://127.0.0.1:{{.Port}} {
{{- if eq .Routing "vars"}}
	vars llm_backend {{.Active}}
{{- end}}
{{- if .Handler}}
	llm_thinking {
		{{.Handler}}
	}
{{- end}}
{{- if .Extra}}
	{{.Extra}}
{{- end}}
{{- range $name, $u := .Upstreams}}
{{- if eq $.Routing "vars"}}
	@{{$name}} vars llm_backend {{$name}}
{{- else}}
	@{{$name}} header X-Backend {{$name}}
{{- end}}
	reverse_proxy @{{$name}} {{$u.HostPort}}
{{- end}}
}
`))

// caddyfile renders the gateway's current config.
func (g *gateway) caddyfile() string {
	var b strings.Builder
	err := caddyfileTemplate.Execute(&b, map[string]any{
		"Admin": adminAddr, "LogFile": g.logFile, "Port": gatewayPort,
		"Routing": g.Routing, "Active": g.Active, "Handler": g.Handler, "Extra": g.Extra, "Upstreams": g.upstreams,
	})
	if err != nil {
		g.t.Fatal(err)
	}
	return b.String()
}

// load posts the current config to the admin API, as `caddy reload` does.
func (g *gateway) load() {
	g.t.Helper()
	resp, err := adminClient.Post("http://"+adminAddr+"/load", "text/caddyfile", strings.NewReader(g.caddyfile()))
	if err != nil {
		g.t.Fatalf("POST /load: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		g.t.Fatalf("POST /load: %s: %s\n%s", resp.Status, body, g.caddyfile())
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
func (g *gateway) url() string { return fmt.Sprintf("http://127.0.0.1:%d", gatewayPort) }

// conversation starts a Claude-Code-like conversation through the gateway.
func (g *gateway) conversation(session string) *llmtest.Conversation {
	c := llmtest.NewConversation(g.url(), session)
	c.Client = &http.Client{Transport: g.transport, Timeout: 15 * time.Second}
	return c
}

// stats reads this test's registry statistics from the admin endpoint.
func (g *gateway) stats() registry.Stats {
	g.t.Helper()
	resp, err := adminClient.Get("http://" + adminAddr + "/llm_thinking/stats")
	if err != nil {
		g.t.Fatalf("GET /llm_thinking/stats: %v", err)
	}
	defer resp.Body.Close()
	var got llmthinking.StatsResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		g.t.Fatalf("decoding stats: %v", err)
	}
	return got.Registries[registryName(g.t)]
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
	b, err := os.ReadFile(g.logFile)
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

// lastRequest returns the body the upstream received last.
func lastRequest(t *testing.T, u *llmtest.Upstream) llmtest.Received {
	t.Helper()
	reqs := u.Requests()
	if len(reqs) == 0 {
		t.Fatal("upstream received nothing")
	}
	return reqs[len(reqs)-1]
}
