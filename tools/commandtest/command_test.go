package commandtest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	_ "github.com/caddy-llm-thinking/caddy-llm-thinking" // registers the command
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// adminAddr is the admin API of the Caddy all tests share: Caddy runs once
// per process, so the tests run one after another.
var adminAddr string

// server is that Caddy.
var server *gatewaytest.Caddy

func TestMain(m *testing.M) {
	gatewaytest.Main(m, func(c *gatewaytest.Caddy) { server, adminAddr = c, c.Admin() })
}

func TestRegistered(t *testing.T) {
	cmd, ok := caddycmd.Commands()["llm-thinking"]
	if !ok {
		t.Fatal("the llm-thinking command is not registered")
	}
	if cmd.Usage != "status|switch|forget" || cmd.CobraFunc == nil {
		t.Fatalf("registered %+v", cmd)
	}
}

// llmThinking runs `caddy llm-thinking args...` as the caddy binary would,
// and returns what it printed and its error.
func llmThinking(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := caddycmd.Commands()["llm-thinking"]
	sub := &cobra.Command{Use: cmd.Name + " " + cmd.Usage, Short: cmd.Short, Long: cmd.Long}
	cmd.CobraFunc(sub)
	root := &cobra.Command{Use: "caddy", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(sub)
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(io.Discard)
	root.SetArgs(append([]string{"llm-thinking"}, args...))
	err := root.Execute()
	return out.String(), err
}

// loadJSON makes config, with its fmt verbs filled from args, the config
// of the running Caddy. Every config keeps the admin settings Start gave,
// so that no load restarts the admin server.
func loadJSON(t *testing.T, config string, args ...any) {
	t.Helper()
	adminRequest(t, http.MethodPost, "/load", fmt.Sprintf(config, args...))
}

// getConfig returns the config at path as the admin API serves it.
func getConfig(t *testing.T, path string) string {
	t.Helper()
	return adminRequest(t, http.MethodGet, path, "")
}

// adminTransport reaches the admin API for the tests. Caddy replaces its
// admin server on every config change, and drops a connection that
// reaches the old one as it closes: the transport sends again then.
var adminTransport = gatewaytest.Transport{Transport: &http.Transport{DisableKeepAlives: true}}

// adminRequest sends a request with a JSON body (none when empty) to the
// admin API, and returns the body of its 200 answer.
func adminRequest(t *testing.T, method, path, body string) string {
	t.Helper()
	answer, err := adminDo(method, path, body)
	if err != nil {
		t.Fatal(err)
	}
	return answer
}

// adminDo is adminRequest for any goroutine.
func adminDo(method, path, body string) (string, error) {
	req, err := http.NewRequest(method, "http://"+adminAddr+path, strings.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: adminTransport}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s %s: %s: %s\n%s", method, path, resp.Status, b, body)
	}
	return string(b), err
}

// freePort returns a port for a server of a config.
func freePort(t *testing.T) int {
	t.Helper()
	port, err := llmtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// recorder stands between the command and the admin API, and records the
// requests that pass, as "METHOD PATH".
type recorder struct {
	srv *httptest.Server
	// afterRead, when set, runs once GET /config/ was answered, before the
	// command gets the answer.
	afterRead func()
	// origin passes the Origin header the command sends, which names the
	// recorder: the admin API refuses it.
	origin bool

	mu       sync.Mutex
	requests []string
}

func newRecorder(t *testing.T) *recorder {
	rec := &recorder{}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(&url.URL{Scheme: "http", Host: adminAddr})
			if !rec.origin {
				pr.Out.Header.Del("Origin")
			}
			// Read the body at once, so that adminTransport can send it again.
			body, err := io.ReadAll(pr.In.Body)
			if err != nil {
				t.Error(err)
			}
			pr.Out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			pr.Out.Body, _ = pr.Out.GetBody()
		},
		Transport: adminTransport,
		ModifyResponse: func(resp *http.Response) error {
			rec.mu.Lock()
			rec.requests = append(rec.requests, resp.Request.Method+" "+resp.Request.URL.Path)
			rec.mu.Unlock()
			if resp.Request.Method == http.MethodGet && resp.Request.URL.Path == "/config/" && rec.afterRead != nil {
				rec.afterRead()
			}
			return nil
		},
	}
	rec.srv = httptest.NewServer(proxy)
	t.Cleanup(rec.srv.Close)
	return rec
}

// addr is the recorder's address, for --address.
func (r *recorder) addr() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// seen returns the requests recorded so far.
func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.requests...)
}
