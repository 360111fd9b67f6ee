package main

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// A profiling is a CPU profile of a Caddy under way, taken from the pprof
// endpoint of its admin API.
type profiling struct {
	done chan error
}

// startProfile starts a CPU profile of p lasting d (rounded up to whole
// seconds) to be written to path. A Caddy waiting for its turn is idle, so
// the profile holds only what serving the load cost it.
func (p *caddyProcess) startProfile(d time.Duration, path string) *profiling {
	seconds := int(math.Ceil(d.Seconds()))
	pr := &profiling{done: make(chan error, 1)}
	go func() {
		pr.done <- p.profile(seconds, path)
	}()
	return pr
}

// wait waits until the profile is written.
func (pr *profiling) wait() error { return <-pr.done }

// profile fetches a CPU profile of seconds and writes it to path.
func (p *caddyProcess) profile(seconds int, path string) error {
	timeout := time.Duration(seconds)*time.Second + 30*time.Second
	return p.fetch(fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds), timeout, path)
}

// heapProfile writes a profile of the memory p holds now to path.
func (p *caddyProcess) heapProfile(path string) error {
	return p.fetch("/debug/pprof/heap?gc=1", 30*time.Second, path)
}

// fetch writes what the admin API serves at endpoint to path.
func (p *caddyProcess) fetch(endpoint string, timeout time.Duration, path string) error {
	c := http.Client{Timeout: timeout}
	resp, err := c.Get(p.admin + endpoint)
	if err != nil {
		return fmt.Errorf("GET %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", endpoint, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// heapProfilePath names the heap profile of gateway g in dir.
func heapProfilePath(dir string, g gateway) string { return filepath.Join(dir, g.slug+"-heap.pprof") }

// profilePath names the profile of load l through gateway g in dir.
func profilePath(dir string, g gateway, l *load) string {
	return filepath.Join(dir, g.slug+"-"+l.slug+".pprof")
}
