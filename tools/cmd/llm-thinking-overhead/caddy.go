package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// startTimeout bounds how long Caddy may take to serve after it started.
const startTimeout = 15 * time.Second

// A caddyProcess is one running Caddy serving one gateway.
type caddyProcess struct {
	cmd      *exec.Cmd
	output   bytes.Buffer  // what Caddy printed; read only once it exited
	exited   chan struct{} // closed when Caddy exited
	siteAddr string        // host:port of the gateway
	admin    string        // base URL of the admin API
}

// startCaddy runs bin serving the gateway g in front of upstream, with its
// Caddyfile in dir and dir as its data and config home (so its storage is
// dir/caddy), and waits until it serves.
func startCaddy(bin string, g gateway, dir, upstream string) (*caddyProcess, error) {
	sitePort, err := llmtest.FreePort()
	if err != nil {
		return nil, fmt.Errorf("find a port for the gateway: %w", err)
	}
	adminPort, err := llmtest.FreePort()
	if err != nil {
		return nil, fmt.Errorf("find a port for the admin API: %w", err)
	}
	caddyfile := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(caddyfile, []byte(g.caddyfile(sitePort, adminPort, upstream)), 0o644); err != nil {
		return nil, fmt.Errorf("write the Caddyfile: %w", err)
	}
	p := &caddyProcess{
		cmd:      exec.Command(bin, "run", "--config", caddyfile, "--adapter", "caddyfile"),
		exited:   make(chan struct{}),
		siteAddr: fmt.Sprintf("127.0.0.1:%d", sitePort),
		admin:    fmt.Sprintf("http://127.0.0.1:%d", adminPort),
	}
	p.cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	p.cmd.Stdout, p.cmd.Stderr = &p.output, &p.output
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		_ = p.cmd.Wait() // how it ended stays in cmd.ProcessState
		close(p.exited)
	}()
	if err := p.awaitServing(); err != nil {
		p.stop()
		return nil, fmt.Errorf("%w; Caddy printed:\n%s", err, p.output.Bytes())
	}
	return p, nil
}

// pid returns the process id of Caddy.
func (p *caddyProcess) pid() int { return p.cmd.Process.Pid }

// stop kills Caddy and waits until it exited.
func (p *caddyProcess) stop() {
	_ = p.cmd.Process.Kill() // fails only when it exited already
	<-p.exited
}

// awaitServing waits until both the admin API and the gateway accept
// requests.
func (p *caddyProcess) awaitServing() error {
	deadline := time.Now().Add(startTimeout)
	for {
		err := p.serving()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("caddy did not serve within %v: %w", startTimeout, err)
		}
		select {
		case <-p.exited:
			return fmt.Errorf("caddy exited before serving: %v", p.cmd.ProcessState)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// serving returns what does not serve yet, the admin API or the gateway,
// or nil.
func (p *caddyProcess) serving() error {
	if _, err := p.registryBlocks(); err != nil {
		return fmt.Errorf("admin API: %w", err)
	}
	conn, err := net.DialTimeout("tcp", p.siteAddr, time.Second)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	conn.Close()
	return nil
}

// registryBlocks returns how many blocks each registry of Caddy holds, by
// name, as GET /llm_thinking/stats on the admin API reports; a config
// without llm_thinking runs none.
func (p *caddyProcess) registryBlocks() (map[string]int, error) {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get(p.admin + "/llm_thinking/stats")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /llm_thinking/stats answered %s", resp.Status)
	}
	var stats struct {
		Registries map[string]struct {
			Blocks int `json:"blocks"`
		} `json:"registries"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&stats); err != nil {
		return nil, fmt.Errorf("read /llm_thinking/stats: %w", err)
	}
	blocks := make(map[string]int, len(stats.Registries))
	for name, reg := range stats.Registries {
		blocks[name] = reg.Blocks
	}
	return blocks, nil
}
