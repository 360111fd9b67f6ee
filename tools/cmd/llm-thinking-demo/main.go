// Command llm-thinking-demo shows, offline, the failure llm_thinking fixes
// and the fix. It starts two mock backends (a strict one that validates
// thinking signatures like Anthropic, a lenient one like GLM), runs real
// Caddy in this process, and plays one scripted conversation that switches
// between them with POST /load: first through plain reverse_proxy, where
// the switch ends in the API's 400, then through llm_thinking, where the
// conversation goes on. It exits non-zero if either run does not behave so.
//
//	go -C tools run ./cmd/llm-thinking-demo
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

func main() {
	log.SetFlags(0)
	anthropic := llmtest.NewUpstream("anthropic", llmtest.Strict)
	defer anthropic.Close()
	glm := llmtest.NewUpstream("glm", llmtest.Lenient)
	defer glm.Close()
	server, err := gatewaytest.Start("")
	if err != nil {
		log.Fatal(err)
	}
	defer server.Stop()

	fmt.Printf("Mock backends: anthropic (strict, checks signatures) at %s, glm (lenient) at %s\n", anthropic.HostPort(), glm.HostPort())
	// Logs and the storage the registry persists in stay in a temporary
	// directory: the demo leaves nothing behind.
	logs, err := os.MkdirTemp("", "llm-thinking-demo")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(logs)
	fmt.Printf("Caddy at %s; each switch is a POST /load of the edited config.\n", server.URL())
	d := demo{server: server, upstreams: map[string]*llmtest.Upstream{"anthropic": anthropic, "glm": glm},
		logFile: filepath.Join(logs, "caddy.log"), storage: "file_system " + filepath.Join(logs, "storage")}

	fmt.Println("\n== 1. Plain reverse_proxy ==")
	plainFailed := d.run("plain", "") == http.StatusBadRequest
	fmt.Println("\n== 2. llm_thinking before reverse_proxy ==")
	fixed := d.run("llm_thinking", "backend {vars.llm_backend}") == http.StatusOK

	if stats, err := server.Stats(); err == nil {
		out, _ := json.Marshal(stats)
		fmt.Printf("\nGET /llm_thinking/stats: %s\n", out)
	}
	if !plainFailed || !fixed {
		fmt.Println("\nThe demo did not go as expected.")
		os.Exit(1)
	}
	fmt.Println("\nWithout llm_thinking the switch fails; with it the conversation goes on.")
}

// demo plays the scripted conversation against one config.
type demo struct {
	server    *gatewaytest.Caddy
	upstreams map[string]*llmtest.Upstream
	site      gatewaytest.Site
	conv      *llmtest.Conversation
	logFile   string
	storage   string // Caddy's storage option, in the temporary directory
	logSeen   int    // bytes of the log already shown
}

// step is one move of the script: a switch, a user message or a tool result.
type step struct {
	switchTo, say, toolResult string
}

var script = []step{
	{switchTo: "glm"},
	{say: "Hello! We will refactor the parser together."},
	{say: "[tool] First list the files."},
	{switchTo: "anthropic"},
	{toolResult: "parser.go scanner.go"},
	{say: "Good. What would you change first?"},
	{switchTo: "glm"},
	{say: "Let GLM carry on."},
	{switchTo: "anthropic"},
	{say: "And back to Anthropic for the review."},
}

// run plays the script with the given llm_thinking lines (none: plain
// proxy) and returns the status of the last turn it played.
func (d *demo) run(name, handler string) int {
	d.site = gatewaytest.Site{Upstreams: map[string]string{}, Handler: handler, LogFile: d.logFile, Storage: d.storage}
	for n, u := range d.upstreams {
		d.site.Upstreams[n] = u.HostPort()
		u.Reset()
	}
	transport := gatewaytest.NewTransport()
	defer transport.CloseIdleConnections()
	d.conv = llmtest.NewConversation(d.server.URL(), "demo-"+name)
	d.conv.Client = &http.Client{Transport: transport}

	status := 0
	for _, s := range script {
		if s.switchTo != "" {
			d.site.Active = s.switchTo
			if err := d.server.Load(d.site); err != nil {
				log.Fatal(err)
			}
			transport.CloseIdleConnections()
			fmt.Printf("   -- switch to %s (POST /load) --\n", s.switchTo)
			continue
		}
		var turn *llmtest.Turn
		var err error
		what := s.say
		if s.toolResult != "" {
			turn, err = d.conv.ToolResult(s.toolResult)
			what = "(tool result) " + s.toolResult
		} else {
			turn, err = d.conv.Say(s.say)
		}
		if err != nil {
			log.Fatal(err)
		}
		status = turn.Status
		d.report(what, turn)
		d.showEvents()
		if status != http.StatusOK {
			fmt.Println("   The conversation is stuck: the client resends this history, or throws all its thinking away.")
			return status
		}
	}
	return status
}

// report prints one turn: what was said, what the backend received, and
// what came back.
func (d *demo) report(what string, turn *llmtest.Turn) {
	backend := d.site.Active
	reqs := d.upstreams[backend].Requests()
	received := 0
	if len(reqs) > 0 {
		blocks, _ := llmtest.RequestThinkingBlocks(reqs[len(reqs)-1].Body)
		received = len(blocks)
	}
	history := d.conv.Messages
	if turn.Status == http.StatusOK {
		history = history[:len(history)-1] // the reply just appended
	}
	sent := len(llmtest.ThinkingBlocks(history))
	fmt.Printf("   [%-9s] %-44q client sent %d thinking blocks, %s got %d -> %d", backend, what, sent, backend, received, turn.Status)
	if turn.Status != http.StatusOK {
		fmt.Printf(" %s", turn.ErrorMessage)
	}
	if w := turn.Header.Values("X-Llm-Thinking-Warning"); len(w) > 0 {
		fmt.Printf(" (X-LLM-Thinking-Warning: %s)", strings.Join(w, ", "))
	}
	fmt.Println()
}

// showEvents prints what llm_thinking logged since the last call.
func (d *demo) showEvents() {
	data, err := os.ReadFile(d.logFile)
	if err != nil || len(data) < d.logSeen {
		d.logSeen = 0
		return
	}
	for _, line := range strings.Split(string(data[d.logSeen:]), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		switch e["msg"] {
		case "thinking.backend_switch":
			fmt.Printf("%16sllm_thinking: switch %v -> %v\n", "", e["from"], e["to"])
		case "thinking.block_handled":
			fmt.Printf("%16sllm_thinking: kept %v, stripped %v, converted %v", "", e["kept"], e["stripped"], e["converted"])
			if e["dropped_thinking_config"] == true {
				fmt.Print(", thinking off for this tool-loop step")
			}
			fmt.Println()
		}
	}
	d.logSeen = len(data)
}
