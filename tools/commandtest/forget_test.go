package commandtest

import (
	"strings"
	"testing"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// TestForgetWhatWasLearned: an Ollama-like backend refuses thinking to a
// model; status shows what the registry learned, and forget drops it, so
// that the next request asks for thinking again.
func TestForgetWhatWasLearned(t *testing.T) {
	ollama := upstream(t, "ollama", llmtest.Unsigned)
	ollama.RefuseThinking("llama3.2")
	site := gatewaytest.Site{
		Upstreams: map[string]string{"ollama": ollama.HostPort()},
		Handler:   "backend {vars.llm_backend}\nregistry forget_test\npersist off",
		Active:    "ollama",
	}
	c, _ := converse(t, site, "forget-test")
	c.Model = "llama3.2"
	say(t, c, "hello")

	out, err := llmThinking(t, "status", "--address", adminAddr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "REGISTRY     BACKEND  MODEL     LEARNED       SINCE\nforget_test  ollama   llama3.2  cannot_think  ") {
		t.Fatalf("status printed\n%s", out)
	}

	out, err = llmThinking(t, "forget", "--address", adminAddr, "--registry", "forget_test", "ollama", "llama3.2")
	if err != nil {
		t.Fatal(err)
	}
	if want := "registry forget_test: forgot what was learned of llama3.2 of ollama (1 model)\n"; out != want {
		t.Fatalf("forget printed %q, want %q", out, want)
	}
	out, _ = llmThinking(t, "status", "--address", adminAddr)
	if strings.Contains(out, "LEARNED") {
		t.Fatalf("status after forget printed\n%s", out)
	}
	// Forgotten: the next request asks for thinking again, and the refusal
	// is learned again (and absorbed).
	say(t, c, "again")
	if n := len(ollama.Requests()); n != 4 {
		t.Fatalf("ollama received %d requests, want 4: a refusal and its replay, twice", n)
	}
	if _, err := llmThinking(t, "forget", "--address", adminAddr, "--registry", "nowhere", "ollama"); err == nil ||
		!strings.Contains(err.Error(), `no registry "nowhere" in use`) {
		t.Fatalf("forget in an unknown registry: %v", err)
	}
}
