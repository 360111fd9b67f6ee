package commandtest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// threeRoutes is a config with three routes that hold an llm_thinking
// handler, one of each kind of backend: a variable a vars handler sets and
// vars matchers read (as Caddyfile.example), the upstream dialed, and a
// request header. Its upstreams are never dialed. Verbs: the admin
// address, two ports.
const threeRoutes = `{
	"admin": {"listen": %[1]q, "config": {"persist": false}},
	"logging": {"logs": {"default": {"level": "ERROR"}}},
	"apps": {"http": {"servers": {
		"gateway": {"listen": ["127.0.0.1:%[2]d"], "routes": [
			{"@id": "claude", "handle": [{"handler": "subroute", "routes": [
				{"handle": [
					{"handler": "vars", "llm_backend": "anthropic"},
					{"handler": "llm_thinking", "backend": "{http.vars.llm_backend}", "mode": "convert_to_text", "registry": "status_a", "max_blocks": 12345678901, "persist": false}
				]},
				{"match": [{"vars": {"llm_backend": ["anthropic"]}}], "handle": [{"handler": "reverse_proxy", "upstreams": [{"dial": "10.0.0.1:443"}]}]},
				{"match": [{"vars": {"{vars.llm_backend}": ["zai", "glm"]}}], "handle": [{"handler": "reverse_proxy", "transport": {"protocol": "openai", "models": [{"match": "claude-*", "model": "glm-4.6"}]}, "upstreams": [{"dial": "10.0.0.2:443"}]}]}
			]}]},
			{"match": [{"path": ["/local/*"]}], "handle": [
				{"handler": "llm_thinking", "registry": "status_b", "persist": false},
				{"handler": "reverse_proxy", "transport": {"protocol": "anthropic", "models": [{"match": "*", "model": "qwen3-coder"}]}, "upstreams": [{"dial": "10.0.0.3:11434"}, {"dial": "10.0.0.4:11434"}]}
			]}
		]},
		"by_header": {"listen": ["127.0.0.1:%[3]d"], "routes": [
			{"handle": [
				{"handler": "llm_thinking", "backend": "{http.request.header.X-Backend}", "registry": "status_b", "persist": false},
				{"handler": "subroute", "routes": [
					{"match": [{"header": {"X-Backend": ["glm"]}}], "handle": [{"handler": "reverse_proxy", "upstreams": [{"dial": "10.0.0.5:8080"}]}]}
				]}
			]}
		]}
	}}}
}`

// loadThreeRoutes makes threeRoutes the running config.
func loadThreeRoutes(t *testing.T) {
	t.Helper()
	loadJSON(t, threeRoutes, adminAddr, freePort(t), freePort(t))
}

const threeRoutesStatus = `SERVER     ROUTE                                         ID      BACKEND                          MODE             REGISTRY  UPSTREAMS
by_header  /config/apps/http/servers/by_header/routes/0  -       {http.request.header.X-Backend}  strip            status_b  10.0.0.5:8080
gateway    /config/apps/http/servers/gateway/routes/0    claude  anthropic (vars llm_backend)     convert_to_text  status_a  anthropic: 10.0.0.1:443; zai|glm: 10.0.0.2:443 [openai, claude-* -> glm-4.6]
gateway    /config/apps/http/servers/gateway/routes/1    -       (upstream dialed)                strip            status_b  10.0.0.3:11434, 10.0.0.4:11434 [anthropic, * -> qwen3-coder]

REGISTRY  BLOCKS  CONFIRMED  UNCONFIRMED  CONVERSATIONS  THREADS  SWITCHES  RETRIES  REFUSALS  PERSIST
status_a  0       0          0            0              0        0         0        0         off
status_b  0       0          0            0              0        0         0        0         off
`

func TestStatus(t *testing.T) {
	loadThreeRoutes(t)
	out, err := llmThinking(t, "status", "--address", adminAddr)
	if err != nil {
		t.Fatal(err)
	}
	if out := withoutMemory(t, out); out != threeRoutesStatus {
		t.Errorf("status printed\n%s\nwant\n%s", out, threeRoutesStatus)
	}
}

// memoryHeader heads the table of the memory budget.
const memoryHeader = "MEMORY BUDGET"

// withoutMemory checks the memory table that ends what status printed and
// returns the rest. The figures are the process's, which other tests move
// (and Go's collector, at any moment): only the budget is known.
func withoutMemory(t *testing.T, out string) string {
	t.Helper()
	rest, table, ok := strings.Cut(out, "\n"+memoryHeader)
	if !ok {
		t.Fatalf("status printed no memory table:\n%s", out)
	}
	// What the backends used follows, when the process's backends
	// answered (other tests' traffic).
	table, backends, _ := strings.Cut(table, "\n\nBACKEND ")
	if backends != "" && !strings.HasPrefix(strings.TrimSpace(backends), "INPUT TOKENS") {
		t.Fatalf("backends table:\n%s", backends)
	}
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) != 2 || strings.Join(strings.Fields(lines[0]), " ") != "HELD IN USE PEAK WAITS OVERLOADED (529) ANSWERS UNREAD" ||
		!strings.HasPrefix(lines[1], "256 MiB ") || len(strings.Fields(lines[1])) != 11 {
		t.Fatalf("memory table:\n%s%s", memoryHeader, table)
	}
	return rest
}

// TestStatusAddressFromConfig reads the admin address from --config, as
// `caddy stop` does.
func TestStatusAddressFromConfig(t *testing.T) {
	loadThreeRoutes(t)
	path := filepath.Join(t.TempDir(), "caddy.json")
	if err := os.WriteFile(path, []byte(`{"admin": {"listen": "`+adminAddr+`"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := llmThinking(t, "status", "--config", path)
	if err != nil {
		t.Fatal(err)
	}
	if out := withoutMemory(t, out); out != threeRoutesStatus {
		t.Errorf("status printed\n%s\nwant\n%s", out, threeRoutesStatus)
	}
}

func TestStatusJSON(t *testing.T) {
	loadThreeRoutes(t)
	out, err := llmThinking(t, "status", "--json", "--address", adminAddr)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{
  "handlers": [
    {
      "server": "by_header",
      "route": "/config/apps/http/servers/by_header/routes/0",
      "backend_config": "{http.request.header.X-Backend}",
      "mode": "strip",
      "registry": "status_b",
      "proxies": [
        {
          "upstreams": [
            "10.0.0.5:8080"
          ],
          "protocol": "http"
        }
      ]
    },
    {
      "server": "gateway",
      "route": "/config/apps/http/servers/gateway/routes/0",
      "id": "claude",
      "backend": "anthropic",
      "backend_config": "{http.vars.llm_backend}",
      "backend_var": "llm_backend",
      "mode": "convert_to_text",
      "registry": "status_a",
      "proxies": [
        {
          "selected_by": [
            "anthropic"
          ],
          "upstreams": [
            "10.0.0.1:443"
          ],
          "protocol": "http"
        },
        {
          "selected_by": [
            "zai",
            "glm"
          ],
          "upstreams": [
            "10.0.0.2:443"
          ],
          "protocol": "openai",
          "models": [
            {
              "match": "claude-*",
              "model": "glm-4.6"
            }
          ]
        }
      ]
    },
    {
      "server": "gateway",
      "route": "/config/apps/http/servers/gateway/routes/1",
      "mode": "strip",
      "registry": "status_b",
      "proxies": [
        {
          "upstreams": [
            "10.0.0.3:11434",
            "10.0.0.4:11434"
          ],
          "protocol": "anthropic",
          "models": [
            {
              "match": "*",
              "model": "qwen3-coder"
            }
          ]
        }
      ]
    }
  ],
  "registries": `
	var stats bytes.Buffer
	if err := json.Indent(&stats, []byte(registriesOf(t)), "  ", "  "); err != nil {
		t.Fatal(err)
	}
	out, memory, ok := strings.Cut(out, ",\n  \"memory\": ")
	if !ok {
		t.Fatalf("status --json printed no memory:\n%s", out)
	}
	var budget struct{ Budget int64 }
	if err := json.NewDecoder(strings.NewReader(memory)).Decode(&budget); err != nil || budget.Budget != 256<<20 {
		t.Errorf("memory: %s (%v)", memory, err)
	}
	if want := want + stats.String(); out != want {
		t.Errorf("status --json printed\n%s\nwant\n%s", out, want)
	}
}

// TestStatusWithoutHandler reports a config without llm_thinking.
func TestStatusWithoutHandler(t *testing.T) {
	loadJSON(t, plainProxy, adminAddr, freePort(t))
	out, err := llmThinking(t, "status", "--address", adminAddr)
	if err != nil {
		t.Fatal(err)
	}
	if want := "no llm_thinking handler in the config\n\nno registry in use\n"; withoutMemory(t, out) != want {
		t.Errorf("status printed\n%s\nwant\n%s", out, want)
	}
}

// plainProxy is a config without llm_thinking. Verbs: the admin address,
// a port.
const plainProxy = `{
	"admin": {"listen": %q, "config": {"persist": false}},
	"logging": {"logs": {"default": {"level": "ERROR"}}},
	"apps": {"http": {"servers": {"srv0": {"listen": ["127.0.0.1:%d"], "routes": [
		{"handle": [{"handler": "reverse_proxy", "upstreams": [{"dial": "10.0.0.1:443"}]}]}
	]}}}}
}`

// registriesOf returns the "registries" member of GET /llm_thinking/stats,
// compact, as the admin API serves it.
func registriesOf(t *testing.T) string {
	t.Helper()
	var stats struct {
		Registries json.RawMessage `json:"registries"`
	}
	if err := json.Unmarshal([]byte(getConfig(t, "/llm_thinking/stats")), &stats); err != nil {
		t.Fatal(err)
	}
	return string(stats.Registries)
}
