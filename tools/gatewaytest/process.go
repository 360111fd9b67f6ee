package gatewaytest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
)

// childEnv marks a test binary that StartProcess started to be Caddy.
const childEnv = "LLM_THINKING_GATEWAYTEST_CADDY"

// RunIfChild turns the running binary into Caddy (the `caddy` command, with
// the arguments it was started with) when StartProcess started it. Call it
// first thing in TestMain; it returns only in the parent.
func RunIfChild() {
	if os.Getenv(childEnv) != "1" {
		return
	}
	os.Args[0] = "caddy"
	caddycmd.Main()
	os.Exit(0)
}

// Process is Caddy running as a process of its own: the test binary itself,
// started again as `caddy run`. Restarts and several instances sharing one
// storage need processes; a crash there cannot take the tests down.
type Process struct {
	Admin  string // the admin API's address, as the Caddyfile gives it
	client *http.Client
	cmd    *exec.Cmd
	out    *lockedBuffer
	exit   chan error
}

// AdminSocket returns an admin address on a Unix socket in dir. A TCP port
// picked free can be taken by another test binary before Caddy listens on
// it; a socket in a directory of the test's own cannot, and no request
// meant for the admin API can reach another test's server.
func AdminSocket(dir string) string { return "unix/" + filepath.Join(dir, "admin.sock") }

// adminHost is the host of the admin API's URLs; requests go to its socket.
const adminHost = "caddy-admin"

// adminClient returns a client of the admin API at admin: a Unix socket
// (see AdminSocket) or host:port.
func adminClient(admin string, timeout time.Duration) (*http.Client, string) {
	socket, ok := strings.CutPrefix(admin, "unix/")
	if !ok {
		return &http.Client{Timeout: timeout}, admin
	}
	var d net.Dialer
	return &http.Client{Timeout: timeout, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return d.DialContext(ctx, "unix", socket) },
	}}, adminHost
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartProcess writes caddyfile into dir and runs Caddy on it, with its
// data and config directories in dir too, and waits until the admin API at
// admin answers.
func StartProcess(dir, caddyfile, admin string) (*Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(path, []byte(caddyfile), 0o600); err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "run", "--config", path, "--adapter", "caddyfile")
	cmd.Env = append(os.Environ(),
		childEnv+"=1",
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)
	p := &Process{Admin: admin, cmd: cmd, out: &lockedBuffer{}, exit: make(chan error, 1)}
	p.client, _ = adminClient(admin, 10*time.Second)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.exit <- cmd.Wait() }()
	if err := p.waitReady(); err != nil {
		p.Kill()
		return nil, fmt.Errorf("%w\n%s", err, p.Output())
	}
	return p, nil
}

// waitReady polls the admin API until it answers, the process exits, or
// 60 seconds pass (a cold start under the race detector is slow).
func (p *Process) waitReady() error {
	client, host := adminClient(p.Admin, time.Second)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-p.exit:
			p.exit <- err
			return fmt.Errorf("caddy exited while starting: %v", err)
		default:
		}
		resp, err := client.Get("http://" + host + "/config/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("caddy's admin API did not answer within 60s")
}

// Stop asks Caddy to stop through the admin API, as `caddy stop` does, and
// waits for the process to exit. It fails when Caddy exits with an error or
// its output shows a data race or a panic.
func (p *Process) Stop() error {
	resp, err := p.client.Post(p.url("/stop"), "", nil)
	if err == nil {
		resp.Body.Close()
	}
	select {
	case err = <-p.exit:
	case <-time.After(30 * time.Second):
		p.Kill()
		return fmt.Errorf("caddy did not stop within 30s\n%s", p.Output())
	}
	out := p.Output()
	switch {
	case err != nil:
		return fmt.Errorf("caddy exited with %v\n%s", err, out)
	case strings.Contains(out, "DATA RACE"), strings.Contains(out, "panic"):
		return fmt.Errorf("caddy's output shows a race or a panic\n%s", out)
	}
	return nil
}

// Load posts a Caddyfile to the admin API, as `caddy reload` does, and
// returns once the server that served siteURL before has stopped accepting
// connections (see Caddy.Load). Clients must not reuse a connection they
// kept alive before the load.
func (p *Process) Load(caddyfile, siteURL string) error {
	return changeAt(siteURL, func() error {
		resp, err := p.client.Post(p.url("/load"), "text/caddyfile", strings.NewReader(caddyfile))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			body, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("POST /load: %s: %s", resp.Status, body)
		}
		return nil
	})
}

// Stats reads every registry's statistics from the admin API.
func (p *Process) Stats() (map[string]adminapi.RegistryStats, error) {
	_, host := adminClient(p.Admin, 0)
	return readStats(p.client, host)
}

// url returns the URL of the admin API's path.
func (p *Process) url(path string) string {
	_, host := adminClient(p.Admin, 0)
	return "http://" + host + path
}

// Kill ends the process at once.
func (p *Process) Kill() {
	p.cmd.Process.Kill()
	select {
	case err := <-p.exit:
		p.exit <- err
	case <-time.After(10 * time.Second):
	}
}

// Output returns what the process wrote so far.
func (p *Process) Output() string { return p.out.String() }
