package persist

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

const prefix = "llm_thinking/registries/test"

func key(name string) block.Key {
	sum := sha256.Sum256([]byte(name))
	return block.Key(sum[:16])
}

// open starts a Store on st with a long interval, so that tests decide when
// it writes.
func open(t *testing.T, st Storage, cfg registry.Config) (*registry.Registry, *Store, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.WarnLevel)
	reg := registry.New(cfg)
	s := Open(context.Background(), reg, st, Options{Prefix: prefix, Interval: time.Hour, Logger: zap.New(core)})
	t.Cleanup(func() { s.Close(context.Background()) })
	return reg, s, logs
}

// origins returns what reg knows of the named blocks, for backend.
func origins(reg *registry.Registry, backend string, names ...string) (origin []string, refused []bool) {
	keys := make([]block.Key, len(names))
	for i, n := range names {
		keys[i] = key(n)
	}
	a := reg.Admit(registry.Request{Backend: backend, Keys: keys})
	return a.Origins, a.Refused
}

func TestARestartKeepsWhatTheRegistryLearned(t *testing.T) {
	st := newMemory()
	reg, s, _ := open(t, st, registry.Config{})
	reg.Observe(0, "anthropic", key("a1"))
	reg.Admit(registry.Request{Conversation: "s1", Backend: "anthropic", Keys: []block.Key{key("a1")}, Track: true})
	reg.Observe(0, "glm", key("g1"))
	reg.Refuse("anthropic", key("g1"))
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}

	again, s2, logs := open(t, st, registry.Config{})
	o, refused := origins(again, "anthropic", "a1", "g1", "unknown")
	if o[0] != "anthropic" || o[1] != "glm" || o[2] != "" || !refused[1] {
		t.Fatalf("after the restart: origins %q, refused %v", o, refused)
	}
	if again.Last("s1") != "anthropic" {
		t.Fatalf("last backend %q, want anthropic", again.Last("s1"))
	}
	if logs.Len() != 0 || s2.Stats().Loaded == 0 {
		t.Fatalf("stats %+v, warnings %v", s2.Stats(), logs.All())
	}
}

func TestLearnedCapabilitiesAndForgettingThemPersist(t *testing.T) {
	st := newMemory()
	reg, s, _ := open(t, st, registry.Config{})
	reg.Learn("ollama", "llama3.2", registry.CannotThink)
	reg.Learn("ollama", "qwen3", registry.Thinks)
	reg.Learn("vllm", "qwen3", registry.NoContextManagement)
	reg.Learn("vllm", "qwen3", registry.NoClearThinking)
	if err := s.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	again, s2, _ := open(t, st, registry.Config{})
	for _, want := range []struct {
		backend, model string
		facts          registry.Capability
	}{
		{"ollama", "llama3.2", registry.CannotThink},
		{"ollama", "qwen3", registry.Thinks},
		{"vllm", "qwen3", registry.NoContextManagement | registry.NoClearThinking},
	} {
		if got := again.Capabilities(want.backend, want.model); got != want.facts {
			t.Fatalf("after a restart, %s %s: %v, want %v", want.backend, want.model, got, want.facts)
		}
	}
	// Forgetting is written down too, for a restart and for replicas.
	again.Forget("ollama", "")
	if err := s2.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	third, _, _ := open(t, st, registry.Config{})
	if c := third.Capabilities("ollama", "llama3.2") | third.Capabilities("ollama", "qwen3"); c != 0 {
		t.Fatalf("forgotten facts came back: %v", c)
	}
	if c := third.Capabilities("vllm", "qwen3"); c == 0 {
		t.Fatal("forgetting one backend forgot another's facts")
	}
}

func TestReplicasShareThroughStorage(t *testing.T) {
	st := newMemory()
	a, sa, _ := open(t, st, registry.Config{})
	b, sb, _ := open(t, st, registry.Config{})
	a.Observe(0, "anthropic", key("a1"))
	if err := sa.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o, _ := origins(b, "anthropic", "a1"); o[0] != "" {
		t.Fatal("b knew the block before reading storage")
	}
	sb.Refresh(time.Minute, []block.Key{key("a1")})
	if o, _ := origins(b, "anthropic", "a1"); o[0] != "anthropic" {
		t.Fatalf("b does not know a's block after a refresh: %q", o)
	}
	// b's own learning goes back to a.
	b.Observe(0, "glm", key("g1"))
	sb.Flush(context.Background())
	sa.Refresh(time.Minute, []block.Key{key("g1")})
	if o, _ := origins(a, "glm", "g1"); o[0] != "glm" {
		t.Fatalf("a does not know b's block: %q", o)
	}
}

// TestARefreshSeesWhatWasWrittenBeforeItWasAskedFor: a request that asks
// while an older read is listing must not settle for that read.
func TestARefreshSeesWhatWasWrittenBeforeItWasAskedFor(t *testing.T) {
	st := newMemory()
	a, sa, _ := open(t, st, registry.Config{})
	b, sb, _ := open(t, st, registry.Config{})
	st.mu.Lock()
	st.listing, st.listed = make(chan struct{}), make(chan struct{})
	listing, listed := st.listing, st.listed
	st.mu.Unlock()

	first := make(chan struct{})
	go func() {
		sb.Refresh(time.Minute, []block.Key{key("something else")}) // lists before a writes
		close(first)
	}()
	<-listing
	a.Observe(0, "anthropic", key("a1"))
	if err := sa.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	second := make(chan struct{})
	go func() {
		sb.Refresh(time.Minute, []block.Key{key("a1")}) // asked after a wrote
		close(second)
	}()
	close(listed)
	<-first
	<-second
	if o, _ := origins(b, "anthropic", "a1"); o[0] != "anthropic" {
		t.Fatal("a refresh asked for after the write did not see it")
	}
}

func TestABlockLookedForRecentlyIsNotLookedForAgain(t *testing.T) {
	st := newMemory()
	_, s, _ := open(t, st, registry.Config{})
	st.mu.Lock()
	before := st.calls
	st.mu.Unlock()
	for i := range 5 {
		if read := s.Refresh(time.Minute, []block.Key{key("nobody knows")}); read != (i == 0) {
			t.Fatalf("refresh %d read storage: %v", i, read)
		}
	}
	st.mu.Lock()
	reads := st.calls - before
	st.mu.Unlock()
	// One refresh: the snapshot's generation, and the listing.
	if reads != 2 {
		t.Fatalf("five refreshes for one missing block cost %d storage calls, want 2", reads)
	}
	if !s.Refresh(time.Minute, []block.Key{key("nobody knows"), key("new")}) {
		t.Fatal("a refresh for a new missing block did not read storage")
	}
	st.mu.Lock()
	reads = st.calls - before
	st.mu.Unlock()
	if reads != 4 {
		t.Fatalf("a new missing block did not make the store read: %d calls", reads)
	}
	// The same set again, then one of the same length with a block not
	// looked for: lookFor remembers the last set, and only that one.
	if s.Refresh(time.Minute, []block.Key{key("nobody knows"), key("new")}) {
		t.Fatal("the set just looked for was looked for again")
	}
	if !s.Refresh(time.Minute, []block.Key{key("new"), key("newer")}) {
		t.Fatal("a set of as many blocks, one of them new, was not looked for")
	}
}

func TestBadFilesAreSkippedWithAWarning(t *testing.T) {
	st := newMemory()
	reg, s, _ := open(t, st, registry.Config{})
	reg.Observe(0, "anthropic", key("a1"))
	s.Flush(context.Background())
	st.files[prefix+journalDir+"/00000000000000000001-x-000001.json"] = []byte("{not json")
	st.files[prefix+journalDir+"/00000000000000000002-x-000001.json"] = []byte(`{"version":99,"changes":[]}`)
	st.files[prefix+journalDir+"/00000000000000000003-x-000001.json"] = []byte(`{"version":2,"changes":[[1,"zz",0,-1,0]],"names":["x"]}`)
	// A well-formed file of the first format: an unknown version now.
	v1 := prefix + journalDir + "/00000000000000000004-x-000001.json"
	st.files[v1] = []byte(`{"version":1,"writer":"x","changes":[{"op":"produced","key":"0123456789abcdef0123456789abcdef","backend":"x"}]}`)
	st.files[prefix+journalDir+"/README.txt"] = []byte("not a segment")
	st.files[prefix+generationName] = []byte(`{"version":2,"generation":7}`)
	st.files[prefix+snapshotFile] = []byte(`{"version":3}`)

	again, s2, logs := open(t, st, registry.Config{})
	if o, _ := origins(again, "anthropic", "a1"); o[0] != "anthropic" {
		t.Fatalf("the good segment was not loaded: %q", o)
	}
	if got := s2.Stats().Bad; got != 5 {
		t.Fatalf("bad files = %d, want 5", got)
	}
	bad := logs.FilterMessage("thinking.persist_bad_file")
	if n := bad.Len(); n != 5 {
		t.Fatalf("%d warnings about bad files, want 5: %v", n, logs.All())
	}
	if w := bad.FilterField(zap.String("key", v1)).All(); len(w) != 1 || !strings.Contains(fmt.Sprint(w[0].ContextMap()["error"]), "unknown version 1") {
		t.Fatalf("the version 1 file was not skipped as an unknown version: %v", w)
	}
}

func TestFoldingKeepsEverythingAndBoundsTheJournal(t *testing.T) {
	st := newMemory()
	reg, s, _ := open(t, st, registry.Config{})
	for i := range foldAt + 3 {
		reg.Observe(0, "anthropic", key(fmt.Sprint(i)))
		if err := s.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	reg.Refuse("glm", key("1"))
	reg.Served("s1", "anthropic")
	reg.Learn("ollama", "llama3.2", registry.CannotThink)
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !s.due() {
		t.Fatal("a journal of foldAt segments is not due for folding")
	}
	s.fold(context.Background())
	if n := len(st.journal(prefix)); n != 0 {
		t.Fatalf("%d segments left after folding", n)
	}
	// A segment written after the fold stays beside the snapshot.
	reg.Observe(0, "glm", key("late"))
	s.Flush(context.Background())

	again, _, logs := open(t, st, registry.Config{})
	names := []string{"late"}
	for i := range foldAt + 3 {
		names = append(names, fmt.Sprint(i))
	}
	o, _ := origins(again, "", names...)
	for i, origin := range o {
		if origin == "" {
			t.Fatalf("block %s lost in the fold", names[i])
		}
	}
	if _, refused := origins(again, "glm", "1"); !refused[0] || again.Last("s1") != "anthropic" {
		t.Fatalf("a refusal or a conversation's backend lost in the fold: refused %v, last %q", refused, again.Last("s1"))
	}
	if c := again.Capabilities("ollama", "llama3.2"); c != registry.CannotThink {
		t.Fatalf("what was learned of a model was lost in the fold: %v", c)
	}
	if logs.Len() != 0 {
		t.Fatal(logs.All())
	}
}

func TestFailedWritesAreRetried(t *testing.T) {
	st := newMemory()
	reg, s, logs := open(t, st, registry.Config{})
	st.set(errors.New("storage is down"), 0)
	reg.Observe(0, "anthropic", key("a1"))
	if err := s.Flush(context.Background()); err == nil {
		t.Fatal("a failed write reported no error")
	}
	if got := s.Stats(); got.Failures != 1 || got.Unwritten != 1 {
		t.Fatalf("stats after a failure: %+v", got)
	}
	if logs.FilterMessage("thinking.persist_failed").Len() != 1 {
		t.Fatal(logs.All())
	}
	st.set(nil, 0)
	reg.Observe(0, "anthropic", key("a2"))
	if err := s.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := s.Stats(); got.Writes != 1 || got.Unwritten != 0 {
		t.Fatalf("stats after recovery: %+v", got)
	}
	again, _, _ := open(t, st, registry.Config{})
	if o, _ := origins(again, "", "a1", "a2"); o[0] != "anthropic" || o[1] != "anthropic" {
		t.Fatalf("origins %q", o)
	}
}

func TestASlowStorageNeverHoldsARequestPastItsDeadline(t *testing.T) {
	st := newMemory()
	_, s, _ := open(t, st, registry.Config{})
	st.set(nil, time.Hour)
	done := make(chan struct{})
	go func() {
		s.Refresh(20*time.Millisecond, []block.Key{key("x")})
		s.Refresh(20*time.Millisecond, []block.Key{key("y")}) // a second caller joins the running read
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Refresh outlived its wait")
	}
	st.set(nil, 0)
	// Close cancels the background read that still waits on the storage.
	closed := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.Close(ctx)
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung on the slow read")
	}
}

func TestConcurrentLearningLosesNothing(t *testing.T) {
	st := newMemory()
	reg, s, _ := open(t, st, registry.Config{})
	const writers, each = 4, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				reg.Observe(0, "anthropic", key(fmt.Sprint(w, "-", i)))
			}
		})
	}
	stop := make(chan struct{})
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		for {
			select {
			case <-stop:
				return
			default:
				s.Flush(context.Background())
			}
		}
	}()
	wg.Wait()
	close(stop)
	<-flushed
	s.Flush(context.Background())

	again, _, _ := open(t, st, registry.Config{})
	var names []string
	for w := range writers {
		for i := range each {
			names = append(names, fmt.Sprint(w, "-", i))
		}
	}
	o, _ := origins(again, "", names...)
	lost := 0
	for _, origin := range o {
		if origin != "anthropic" {
			lost++
		}
	}
	if lost != 0 {
		t.Fatalf("%d of %d registrations lost", lost, len(names))
	}
}

func TestPrefixKeepsNamesInside(t *testing.T) {
	for name, want := range map[string]string{
		"default":    "llm_thinking/registries/default",
		"team-2.a_b": "llm_thinking/registries/team-2.a_b",
	} {
		if got := Prefix(name); got != want {
			t.Errorf("Prefix(%q) = %q", name, got)
		}
	}
	for _, name := range []string{"", "..", "a/b", "../../etc", strings.Repeat("x", 65), "sp ace"} {
		if got := Prefix(name); !strings.HasPrefix(got, "llm_thinking/registries/sha256-") || strings.Count(got, "/") != 2 {
			t.Errorf("Prefix(%q) = %q", name, got)
		}
	}
}
