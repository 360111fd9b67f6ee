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
	c := http.Client{Timeout: time.Duration(seconds)*time.Second + 30*time.Second}
	resp, err := c.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", p.admin, seconds))
	if err != nil {
		return fmt.Errorf("profile Caddy: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile Caddy: %s", resp.Status)
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

// heapProfile writes a profile of the memory p holds now to path.
func (p *caddyProcess) heapProfile(path string) error {
	c := http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(p.admin + "/debug/pprof/heap?gc=1")
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("heap profile: %s", resp.Status)
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
