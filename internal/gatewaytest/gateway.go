// Package gatewaytest runs real Caddy in process, with llm_thinking in front
// of mock backends, and drives it the way users do: every config goes
// through the admin API's POST /load. The integration tests and the offline
// demo share it. It is test infrastructure: nothing here belongs in a
// production build.
package gatewaytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"text/template"
	"time"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard" // reverse_proxy, vars, header...

	llmthinking "github.com/caddy-llm-thinking/caddy-llm-thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/registry"
)

// Caddy is a Caddy instance running in this process.
type Caddy struct {
	admin string
	port  int
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
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if admin == "" {
		adminPort, err := freePort()
		if err != nil {
			return nil, err
		}
		admin = fmt.Sprintf("localhost:%d", adminPort)
	}
	// The same admin config as every Site renders, so that loads never
	// restart the admin server under a client's feet.
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

// freePort returns a port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops Caddy.
func (c *Caddy) Stop() error { return caddy.Stop() }

// URL is the base URL of the site, for clients.
func (c *Caddy) URL() string { return fmt.Sprintf("http://127.0.0.1:%d", c.port) }

// Site is the config of the one site under test.
type Site struct {
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
	// Extra holds more directives for the site block.
	Extra string
	// LogFile, when set, receives the JSON log at debug level.
	LogFile string
}

var caddyfileTemplate = template.Must(template.New("Caddyfile").Parse(`{
	admin {{.Admin}}
	persist_config off
	auto_https off
{{- if .Site.LogFile}}
	log {
		output file {{.Site.LogFile}}
		level DEBUG
		# As in Caddyfile.example: Caddy redacts Authorization in its logs,
		# not the x-api-key header that reverse_proxy's debug log shows.
		format filter {
			wrap json
			request>headers>X-Api-Key delete
		}
	}
{{- end}}
}

http://127.0.0.1:{{.Port}} {
{{- if not .Site.ByHeader}}
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
{{- range $name, $addr := .Site.Upstreams}}
{{- if $.Site.ByHeader}}
	@{{$name}} header X-Backend {{$name}}
{{- else}}
	@{{$name}} vars llm_backend {{$name}}
{{- end}}
	reverse_proxy @{{$name}} {{$addr}}
{{- end}}
}
`))

// Caddyfile renders the config of s.
func (c *Caddy) Caddyfile(s Site) (string, error) {
	var b strings.Builder
	err := caddyfileTemplate.Execute(&b, map[string]any{"Admin": c.admin, "Port": c.port, "Site": s})
	return b.String(), err
}

// Load posts the config of s to the admin API, as `caddy reload` does.
func (c *Caddy) Load(s Site) error {
	cf, err := c.Caddyfile(s)
	if err != nil {
		return err
	}
	resp, err := c.client.Post("http://"+c.admin+"/load", "text/caddyfile", strings.NewReader(cf))
	if err != nil {
		return fmt.Errorf("POST /load: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("POST /load: %s: %s", resp.Status, body)
	}
	return nil
}

// Stats reads every registry's statistics from the admin endpoint.
func (c *Caddy) Stats() (map[string]registry.Stats, error) {
	resp, err := c.client.Get("http://" + c.admin + "/llm_thinking/stats")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var got llmthinking.StatsResponse
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return nil, fmt.Errorf("decoding stats: %w", err)
	}
	return got.Registries, nil
}
