package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/gatewaytest"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/tools/llmtest"
)

// instance is one Caddy process of a test, with its site config.
type instance struct {
	t    *testing.T
	site gatewaytest.Site
	port int
	dir  string
	proc *gatewaytest.Process
}

// newInstance describes a Caddy process routing by `vars llm_backend` to the
// given upstreams, its registry in the file system storage at storage. It
// is not started yet.
func newInstance(t *testing.T, upstreams map[string]*llmtest.Upstream, storage, handler string) *instance {
	t.Helper()
	port, err := llmtest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	in := &instance{t: t, port: port, site: gatewaytest.Site{
		Upstreams: map[string]string{},
		Handler:   "backend {vars.llm_backend}\nregistry shared\npersist_interval 10ms\n" + handler,
		Storage:   "file_system " + storage,
	}}
	for name, u := range upstreams {
		in.site.Upstreams[name] = u.HostPort()
	}
	return in
}

// start runs the process on the backend called active. A port taken since
// it was picked makes it pick others and try again.
func (in *instance) start(active string) {
	in.t.Helper()
	in.site.Active = active
	in.dir = in.t.TempDir()
	in.site.LogFile = filepath.Join(in.dir, "caddy.log")
	// The admin API listens on a socket of the test's own (see
	// gatewaytest.AdminSocket); a site port taken since it was picked
	// makes it pick another and try again.
	admin := gatewaytest.AdminSocket(in.dir)
	for attempt := 1; ; attempt++ {
		cf, err := gatewaytest.Render(admin, in.port, in.site)
		if err != nil {
			in.t.Fatal(err)
		}
		in.proc, err = gatewaytest.StartProcess(in.dir, cf, admin)
		if err == nil {
			break
		}
		if attempt == 5 || !strings.Contains(err.Error(), "address already in use") {
			in.t.Fatal(err)
		}
		if in.port, err = llmtest.FreePort(); err != nil {
			in.t.Fatal(err)
		}
	}
	in.t.Cleanup(func() {
		if in.proc != nil {
			in.proc.Kill()
		}
	})
}

// use switches the process to another backend through POST /load, and
// returns once the old config serves no more.
func (in *instance) use(active string) {
	in.t.Helper()
	in.site.Active = active
	cf, err := gatewaytest.Render(in.proc.Admin, in.port, in.site)
	if err != nil {
		in.t.Fatal(err)
	}
	if err := in.proc.Load(cf, in.url()); err != nil {
		in.t.Fatal(err)
	}
}

// stop stops the process the way `caddy stop` does.
func (in *instance) stop() {
	in.t.Helper()
	if err := in.proc.Stop(); err != nil {
		in.t.Fatal(err)
	}
	in.proc = nil
}

func (in *instance) url() string { return fmt.Sprintf("http://127.0.0.1:%d", in.port) }

// written waits until the instance has written everything its registry
// learned to storage, as its stats report it.
func (in *instance) written() {
	in.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stats, err := in.proc.Stats()
		if err != nil {
			in.t.Fatal(err)
		}
		s := stats["shared"]
		if s.Persist == nil {
			in.t.Fatalf("registry does not persist: %+v", s)
		}
		if s.Persist.Unwritten == 0 {
			return
		}
		if time.Now().After(deadline) {
			in.t.Fatalf("registry still has %d changes unwritten after 10s: %+v", s.Persist.Unwritten, s.Persist)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// talk returns a conversation through in, and a check that fails the test
// unless a turn got a 200. Every turn opens a connection of its own: one
// kept alive across a switch could carry the next turn to the old config.
func talk(t *testing.T, session string) (*llmtest.Conversation, func(*llmtest.Turn, error) *llmtest.Turn) {
	c := llmtest.NewConversation("", session)
	transport := gatewaytest.Transport{Transport: &http.Transport{DisableKeepAlives: true}}
	c.Client = &http.Client{Transport: transport, Timeout: 30 * time.Second}
	return c, okTurns(t)
}

func TestRestartWithPersistKeepsEveryBlock(t *testing.T) {
	ups := startUpstreams(t, anthropicAndGLM)
	in := newInstance(t, ups, t.TempDir(), "")
	in.start("glm")
	c, ok := talk(t, "restart-persist")
	c.BaseURL = in.url()
	ok(c.Say("on glm"))
	in.use("anthropic")
	ok(c.Say("on anthropic"))
	ok(c.Say("still on anthropic"))
	glmOwn, anthropicOwn := historyBlocks(c)[:1], historyBlocks(c)[1:3]
	in.stop()

	in.start("anthropic")
	c.BaseURL = in.url()
	ok(c.Say("after the restart"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ups["anthropic"]).Body), anthropicOwn)
	// A switch right after the restart: glm gets exactly its own block.
	in.use("glm")
	ok(c.Say("back on glm"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ups["glm"]).Body), glmOwn)
	for name, u := range ups {
		if slices.Contains(statuses(u), http.StatusBadRequest) {
			t.Errorf("%s refused a request: %v", name, statuses(u))
		}
	}
	in.stop()
}

func TestRestartWithoutPersistNeverSurfacesA400(t *testing.T) {
	ups := startUpstreams(t, anthropicAndGLM)
	in := newInstance(t, ups, t.TempDir(), "persist off")
	in.start("anthropic")
	mixed, ok := talk(t, "restart-mixed")
	single, _ := talk(t, "restart-single")
	mixed.BaseURL, single.BaseURL = in.url(), in.url()
	ok(mixed.Say("on anthropic"))
	ok(single.Say("only ever on anthropic"))
	ok(single.Say("again"))
	in.use("glm")
	ok(mixed.Say("on glm"))
	in.stop()

	// The restart comes with a switch back to anthropic.
	in.start("anthropic")
	mixed.BaseURL, single.BaseURL = in.url(), in.url()
	// A conversation that never switched keeps every block it had: unknown
	// blocks of a conversation that knew one backend are that backend's.
	ok(single.Say("after the restart"))
	assertBlocks(t, thinkingBlocks(t, lastRequest(t, ups["anthropic"]).Body), historyBlocks(single)[:2])
	// The switched one offers glm's block, which anthropic refuses; the
	// client never sees it.
	ok(mixed.Say("after the restart"))
	if got := statuses(ups["anthropic"]); got[len(got)-2] != http.StatusBadRequest || got[len(got)-1] != http.StatusOK {
		t.Fatalf("anthropic answered %v, want the last request refused then replayed", got)
	}
	in.stop()
}

// TestTwoInstancesActAsOne alternates one conversation between two Caddy
// processes that share a file system storage, across a switch: each
// upstream gets exactly its own blocks every time, and nothing is refused.
func TestTwoInstancesActAsOne(t *testing.T) {
	ups := startUpstreams(t, anthropicAndGLM)
	storage := t.TempDir()
	a := newInstance(t, ups, storage, "")
	b := newInstance(t, ups, storage, "")
	a.start("glm")
	b.start("glm")
	c, ok := talk(t, "replicas")
	own := map[string][]int{} // backend -> indexes of its blocks in the history
	turn := func(in *instance, backend string) {
		t.Helper()
		c.BaseURL = in.url()
		before := len(historyBlocks(c))
		ok(c.Say("turn on " + backend))
		var want []json.RawMessage
		for _, i := range own[backend] {
			want = append(want, historyBlocks(c)[i])
		}
		assertBlocks(t, thinkingBlocks(t, lastRequest(t, ups[backend]).Body), want)
		own[backend] = append(own[backend], before)
		in.written()
	}
	turn(a, "glm")
	turn(b, "glm")
	turn(a, "glm")
	a.use("anthropic")
	b.use("anthropic")
	turn(b, "anthropic")
	turn(a, "anthropic")
	turn(b, "anthropic")
	a.use("glm")
	turn(a, "glm")
	for name, u := range ups {
		if slices.Contains(statuses(u), http.StatusBadRequest) {
			t.Errorf("%s refused a request: %v", name, statuses(u))
		}
	}
	a.stop()
	b.stop()
}

// startUpstreams starts the named mock upstreams for a test.
func startUpstreams(t *testing.T, flavors map[string]llmtest.Flavor) map[string]*llmtest.Upstream {
	ups := map[string]*llmtest.Upstream{}
	for name, f := range flavors {
		u := llmtest.NewUpstream(name, f)
		t.Cleanup(u.Close)
		ups[name] = u
	}
	return ups
}

// TestGeminiSignaturesSurviveARestart: the key that seals Gemini's
// signatures is kept in Caddy's storage, so after a restart the envelopes
// the client replays still open, and Gemini gets its own signature back,
// not a dummy.
func TestGeminiSignaturesSurviveARestart(t *testing.T) {
	gem := llmtest.NewGeminiUpstream("gemini")
	t.Cleanup(gem.Close)
	gem.RequireKey(geminiKey)
	in := newInstance(t, nil, t.TempDir(), "")
	in.site.Upstreams["gemini"] = gem.HostPort()
	in.site.Blocks = map[string]string{"gemini": "transport gemini {\n\t\t\tmodel claude-* gemini-3-pro-preview\n\t\t\tapi_key " + geminiKey + "\n\t\t}"}
	in.start("gemini")
	c, ok := talk(t, "gemini-restart")
	c.BaseURL = in.url()
	ok(c.Say("[tool] list the files"))
	issued := gem.Signatures()
	in.stop()

	in.start("gemini")
	c.BaseURL = in.url()
	ok(c.ToolResult("file1"))
	_, req := lastGeminiRequest(t, gem)
	if sigs := callSignatures(req); len(sigs) != 1 || issued[sigs[0]] != "call Bash" {
		t.Fatalf("after the restart the call went back with %q, want its own signature", sigs)
	}
	assertAccepted(t, "Gemini", gem)
	in.stop()
}
