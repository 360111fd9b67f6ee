// Command llm-thinking-chatmock serves a mock OpenAI-compatible
// chat-completions server (llmtest's ChatUpstream) for trying the
// real Claude Code client through llm_thinking and transport openai
// without a model: a request whose last message says "[tool]" gets
// reasoning and a Bash tool call, any other reasoning and a text answer.
// It validates like the real servers (DeepSeek's reasoning_content rule
// included) and writes every request it received, and its answer, to a
// directory. See DEVELOPERS.md.
//
//	go -C tools run ./cmd/llm-thinking-chatmock -flavor deepseek -log /tmp/chatmock
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

func main() {
	flavor := flag.String("flavor", "deepseek", "where the mock puts its reasoning: deepseek (reasoning_content), vllm (reasoning), tags (<think> in content) or openrouter; "+
		"kimi and deepseek-v4 also put it in reasoning_content, and want it back on every tool call message (kimi) or every assistant message (deepseek-v4)")
	dir := flag.String("log", "", "write each request and its answer to this directory (request-N.json, answer-N.txt)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("llm-thinking-chatmock: ")
	f, ok := map[string]llmtest.ChatFlavor{"deepseek": llmtest.DeepSeekStyle, "vllm": llmtest.VLLMStyle,
		"tags": llmtest.ThinkTagged, "openrouter": llmtest.OpenRouterStyle, "kimi": llmtest.KimiStyle, "deepseek-v4": llmtest.DeepSeekV4Style}[*flavor]
	if !ok {
		log.Fatalf("unknown -flavor %q", *flavor)
	}
	if *dir != "" {
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			log.Fatal(err)
		}
	}
	u := llmtest.NewChatUpstream("mock", f)
	defer u.Close()
	var mu sync.Mutex
	n := 0
	u.OnAnswered(func(r llmtest.Received) {
		mu.Lock()
		defer mu.Unlock()
		n++
		log.Printf("%s %s -> %d (%d bytes in)", r.Method, r.Path, r.Status, len(r.Body))
		if *dir == "" {
			return
		}
		for name, b := range map[string][]byte{fmt.Sprintf("request-%d.json", n): r.Body, fmt.Sprintf("answer-%d.txt", n): r.Response} {
			if err := os.WriteFile(filepath.Join(*dir, name), b, 0o644); err != nil {
				log.Print(err)
			}
		}
	})
	fmt.Println(u.HostPort())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	<-stop
}
