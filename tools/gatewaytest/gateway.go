// Package gatewaytest runs real Caddy in process, with llm_thinking in front
// of mock backends, and drives it the way users do: every config goes
// through the admin API's POST /load. The integration tests and the offline
// demo share it. It is test infrastructure: nothing here belongs in a
// production build.
package gatewaytest

import (
	"cmp"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard" // reverse_proxy, vars, header...

	_ "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/budget"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// Caddy is a Caddy instance running in this process.
type Caddy struct {
	admin      string
	port       int
	generation int // of the last config loaded
	// client talks to the admin API on a fresh connection each call, and
	// retries a dropped one: Caddy replaces its admin server on every load,
	// and a connection can land on the old one as it closes. Posting the same
	// config twice is harmless.
	client *http.Client
}

// Start boots Caddy with only its admin endpoint, on admin (host:port, or a
// free port when empty), and picks a free port for the site that Load
// configures. One process can run one Caddy at a time.
func Start(admin string) (*Caddy, error) {
	port, err := llmtest.FreePort()
	if err != nil {
		return nil, err
	}
	if admin == "" {
		adminPort, err := llmtest.FreePort()
		if err != nil {
			return nil, err
		}
		admin = fmt.Sprintf("127.0.0.1:%d", adminPort)
	}
	// The same admin config as every Site renders. Caddy still replaces
	// its admin server on every load (its log says "stopped previous
	// server" each time), which is why the client retries a dropped call.
	boot := fmt.Sprintf(`{"admin":{"listen":%q,"config":{"persist":false}},"logging":{"logs":{"default":{"level":"ERROR"}}}}`, admin)
	if err := caddy.Load([]byte(boot), true); err != nil {
		return nil, fmt.Errorf("starting caddy: %w", err)
	}
	return &Caddy{
		admin:  admin,
		port:   port,
		client: &http.Client{Transport: Transport{&http.Transport{DisableKeepAlives: true}}, Timeout: 10 * time.Second},
	}, nil
}

// Main is the TestMain of a package whose tests share one Caddy: it makes
// the test binary Caddy when StartProcess started it (RunIfChild), starts
// Caddy with its admin API on a port free at that moment, never a fixed
// one (Caddy listens with SO_REUSEPORT, so a fixed port would share its
// connections with any other test run on the machine), hands it to
// started, runs the tests, stops Caddy and exits with the tests' status.
func Main(m interface{ Run() int }, started func(*Caddy)) {
	RunIfChild()
	c, err := Start("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	started(c)
	code := m.Run()
	c.Stop()
	os.Exit(code)
}

// Stop stops Caddy.
func (c *Caddy) Stop() error { return caddy.Stop() }

// Admin is the address of the admin API, host:port.
func (c *Caddy) Admin() string { return c.admin }

// URL is the base URL of the site, for clients.
func (c *Caddy) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

// Site is the config of the one site under test.
type Site struct {
	// Port is the site's port; 0 means the one Start picked. A test that
	// takes a port of its own can never be served by a config of another
	// test that Caddy is still shutting down.
	Port int
	// Upstreams maps backend names to their host:port.
	Upstreams map[string]string
	// Handler holds the llm_thinking block's lines; empty leaves
	// llm_thinking out (plain reverse_proxy).
	Handler string
	// ByHeader routes by the X-Backend request header; otherwise a
	// `vars llm_backend <Active>` line picks the backend, and switching means
	// loading the config again with another Active.
	ByHeader bool
	Active   string
	// Proxy, when set, is the one reverse_proxy of the site, as the
	// arguments and block that follow the directive; Upstreams, ByHeader
	// and Active then route nothing. With llm_thinking's backend unset, this
	// is how an admin-API switch of upstreams is played.
	Proxy string
	// Blocks holds, by backend name, the block of that backend's
	// reverse_proxy ("transport openai {...}", say); a backend without one
	// has none.
	Blocks map[string]string
	// Extra holds more directives for the site block.
	Extra string
	// LogFile, when set, receives the JSON log at debug level.
	LogFile string
	// Global holds more global options ("llm_thinking {...}", say).
	Global string
	// Storage, when set, is Caddy's storage option, module and arguments
	// ("file_system /tmp/x"), where registries persist; otherwise Caddy's
	// default applies.
	Storage string
}

var caddyfileTemplate = template.Must(template.New("Caddyfile").Parse(`{
	admin {{.Admin}}
	persist_config off
	auto_https off
{{- if .Site.Storage}}
	storage {{.Site.Storage}}
{{- end}}
{{- if .Site.Global}}
	{{.Site.Global}}
{{- end}}
{{- if .Site.LogFile}}
	log {
		output file {{.Site.LogFile}}
		level DEBUG
		# As in Caddyfile.example: Caddy redacts Authorization in its logs,
		# not the x-api-key header nor the session ids that reverse_proxy's
		# logs show.
		format filter {
			wrap json
			request>headers>X-Api-Key delete
			request>headers>X-Claude-Code-Session-Id hash
			request>headers>X-Claude-Code-Agent-Id hash
		}
	}
{{- end}}
}

http://127.0.0.1:{{.Port}} {
	respond /__gatewaytest/generation "{{.Generation}}" 200
{{- if and (not .Site.ByHeader) (not .Site.Proxy)}}
	vars llm_backend {{.Site.Active}}
{{- end}}
{{- if .Site.Handler}}
	llm_thinking {
		{{.Site.Handler}}
	}
{{- end}}
{{- if .Site.Extra}}
	{{.Site.Extra}}
{{- end}}
{{- if .Site.Proxy}}
	reverse_proxy {{.Site.Proxy}}
{{- else}}
{{- range $name, $addr := .Site.Upstreams}}
{{- if $.Site.ByHeader}}
	@{{$name}} header X-Backend {{$name}}
{{- else}}
	@{{$name}} vars llm_backend {{$name}}
{{- end}}
	reverse_proxy @{{$name}} {{$addr}}{{with index $.Site.Blocks $name}} {
		{{.}}
	}{{end}}
{{- end}}
{{- end}}
}
`))

// Caddyfile renders the config of s.
func (c *Caddy) Caddyfile(s Site) (string, error) {
	return render(c.admin, cmp.Or(s.Port, c.port), c.generation+1, s)
}

// URLFor is the base URL of the site s configures, for clients.
func (c *Caddy) URLFor(s Site) string {
	return fmt.Sprintf("http://127.0.0.1:%d", cmp.Or(s.Port, c.port))
}

// Render renders the config of s for a Caddy with its admin API at admin
// and the site on port.
func Render(admin string, port int, s Site) (string, error) { return render(admin, port, 0, s) }

func render(admin string, port, generation int, s Site) (string, error) {
	var b strings.Builder
	err := caddyfileTemplate.Execute(&b, map[string]any{"Admin": admin, "Port": port, "Generation": generation, "Site": s})
	return b.String(), err
}

// Load posts the config of s to the admin API, as `caddy reload` does, and
// returns once the new config alone serves the site. Caddy answers the POST
// as soon as the new servers run and the old ones begin to stop; until they
// have stopped, an old server may still accept a connection and serve it
// with the old config. Load waits until the old server has let go of its
// connections (see changeAt), then until the site answers with the new
// config's generation. Clients must still drop the connections they kept
// alive before the load (CloseIdleConnections): one that carried a request
// just then may be served by the old config once more.
func (c *Caddy) Load(s Site) error {
	cf, err := c.Caddyfile(s)
	if err != nil {
		return err
	}
	if err := changeAt(c.URLFor(s), func() error { return c.post(cf) }); err != nil {
		return err
	}
	c.generation++
	want := strconv.Itoa(c.generation)
	probe := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		resp, err := probe.Get(c.URLFor(s) + "/__gatewaytest/generation")
		if err == nil {
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) == want {
				return nil
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return fmt.Errorf("the site did not serve config generation %s within 10s", want)
}

// Change runs change, which alters the running config of site s through
// the admin API some other way than Load (a PATCH, `caddy llm-thinking
// switch`), and returns once the server that served the site before has
// stopped accepting connections, as Load does.
func (c *Caddy) Change(s Site, change func() error) error {
	return changeAt(c.URLFor(s), change)
}

// Stats reads every registry's statistics from the admin endpoint.
func (c *Caddy) Stats() (map[string]adminapi.RegistryStats, error) {
	return readStats(c.client, c.admin)
}

// Memory reads the memory budget's statistics from the admin endpoint.
func (c *Caddy) Memory() (budget.Stats, error) {
	got, err := allStats(c.client, c.admin)
	return got.Memory, err
}

// readStats reads the registries of GET /llm_thinking/stats from the
// admin API at admin.
func readStats(client *http.Client, admin string) (map[string]adminapi.RegistryStats, error) {
	got, err := allStats(client, admin)
	return got.Registries, err
}

// allStats reads GET /llm_thinking/stats from the admin API at admin.
func allStats(client *http.Client, admin string) (adminapi.Stats, error) {
	var got adminapi.Stats
	err := adminJSON(client, http.MethodGet, "http://"+admin+adminapi.StatsPath, &got)
	return got, err
}
