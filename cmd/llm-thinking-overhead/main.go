// Command llm-thinking-overhead measures the CPU that llm_thinking adds to
// a built Caddy, end to end: the same Caddy binary runs once with plain
// reverse_proxy and once with llm_thinking before it, and the CPU time of the
// Caddy process (from /proc, so Linux only) is divided by the requests it
// served. The client and the upstream run in this process, so they are not
// counted. Two loads: a 256 KiB Claude Code session answered with a small
// JSON message, and a small request answered with an SSE stream (cost per
// event). Each is measured in several rounds, alternating the configs, and
// reported as medians, since shared machines are noisy.
//
//	./scripts/run   # or: go -C tools run ./buildcaddy
//	go run ./cmd/llm-thinking-overhead -caddy ./caddy
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/llmtest"
)

// events is the length of the SSE reply.
const events = 442

func main() {
	caddyBin := flag.String("caddy", "./caddy", "the Caddy binary built with llm_thinking")
	window := flag.Duration("window", 5*time.Second, "how long each measurement runs")
	rounds := flag.Int("rounds", 3, "measurements per config and load")
	flag.Parse()
	log.SetFlags(0)

	session, err := longSession()
	if err != nil {
		log.Fatal(err)
	}
	upstream, err := startUpstream()
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "llm-thinking-overhead")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	port, err := freePort()
	if err != nil {
		log.Fatal(err)
	}
	configs := map[string]string{"plain reverse_proxy": "", "llm_thinking": "\tllm_thinking anthropic\n"}
	results := map[string][]float64{}
	for range *rounds {
		for _, name := range []string{"plain reverse_proxy", "llm_thinking"} {
			cf := filepath.Join(dir, "Caddyfile")
			site := fmt.Sprintf("{\n\tadmin off\n\tlog {\n\t\tlevel ERROR\n\t}\n}\nhttp://127.0.0.1:%d {\n%s\treverse_proxy %s\n}\n", port, configs[name], upstream)
			if err := os.WriteFile(cf, []byte(site), 0o644); err != nil {
				log.Fatal(err)
			}
			run := runner{url: fmt.Sprintf("http://127.0.0.1:%d/v1/messages", port), window: *window}
			if err := run.start(*caddyBin, cf); err != nil {
				log.Fatal(err)
			}
			json, err := run.measure("", session)
			if err == nil {
				results[name+", 256 KiB request"] = append(results[name+", 256 KiB request"], json*1e6)
				var sse float64
				sse, err = run.measure("?sse=1", []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`))
				results[name+", per SSE event"] = append(results[name+", per SSE event"], sse*1e9/events)
			}
			run.stop()
			if err != nil {
				log.Fatal(err)
			}
		}
	}
	for _, load := range []string{"256 KiB request", "per SSE event"} {
		unit, scale := "µs", "request"
		if load == "per SSE event" {
			unit, scale = "ns", "event"
		}
		plain := median(results["plain reverse_proxy, "+load])
		with := median(results["llm_thinking, "+load])
		fmt.Printf("%-16s plain reverse_proxy %8.1f %s CPU per %s, with llm_thinking %8.1f (+%.1f, +%.0f%%)\n",
			load, plain, unit, scale, with, with-plain, 100*(with-plain)/plain)
	}
}

// longSession is the captured --continue request grown to 256 KiB.
func longSession() ([]byte, error) {
	raw, err := os.ReadFile("testdata/claude-code-2.1.328/capture-3-continue-replays-thinking.json")
	if err != nil {
		return nil, fmt.Errorf("run from the repository root: %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	return llmtest.GrowHistory(compact.Bytes(), 256<<10)
}

// startUpstream serves a small JSON message, or with ?sse=1 a stream of
// text deltas flushed one by one, and returns its address.
func startUpstream() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	event := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Here is some more of the answer, \"}}\n\n"
	go http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Query().Get("sse") == "" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range events {
			io.WriteString(w, event)
			w.(http.Flusher).Flush()
		}
	}))
	return l.Addr().String(), nil
}

// runner runs one Caddy and loads it.
type runner struct {
	url    string
	window time.Duration
	cmd    *exec.Cmd
	client http.Client
}

func (r *runner) start(bin, caddyfile string) error {
	r.cmd = exec.Command(bin, "run", "--config", caddyfile, "--adapter", "caddyfile")
	if err := r.cmd.Start(); err != nil {
		return err
	}
	// Wait until it serves, then warm it up.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := r.send("", []byte(`{}`)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("caddy did not start serving %s", r.url)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 100 {
		if _, err := r.send("", []byte(`{"messages":[]}`)); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) stop() {
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// measure sends body again and again for the window and returns the Caddy
// process's CPU seconds per request.
func (r *runner) measure(query string, body []byte) (float64, error) {
	before, err := cpuSeconds(r.cmd.Process.Pid)
	if err != nil {
		return 0, err
	}
	n := 0
	for start := time.Now(); time.Since(start) < r.window; n++ {
		if _, err := r.send(query, body); err != nil {
			return 0, err
		}
	}
	after, err := cpuSeconds(r.cmd.Process.Pid)
	return (after - before) / float64(n), err
}

func (r *runner) send(query string, body []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPost, r.url+query, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Claude-Code-Session-Id", "overhead")
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// cpuSeconds returns the user and system CPU time of a process.
func cpuSeconds(pid int) (float64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th, in clock ticks of 1/100 s.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseFloat(fields[11], 64)
	stime, err2 := strconv.ParseFloat(fields[12], 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return (utime + stime) / 100, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
