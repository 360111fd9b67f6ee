package policy

import (
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/threads"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Policy decides the fate of thinking blocks against one registry. It is
// safe for concurrent use; change its fields only before sharing it.
type Policy struct {
	// Registry remembers which backend produced each block.
	Registry *registry.Registry
	// Foreign is what becomes of a block the target did not produce:
	// thinking.Strip, or a converting action.
	Foreign thinking.Action
	// Models are the models that can take thinking (see Models); a
	// request for any other has every block stripped.
	Models Models
	// Mismatches, when set, remembers the conversations whose backend
	// answered under another model name (see Mismatches).
	Mismatches *Mismatches
	// SynthesizedAsTags gives a backend the thinking blocks made from its
	// own <think> tags back as the text it wrote, tags included, rather
	// than as thinking blocks.
	SynthesizedAsTags bool
	// Threads, when set, recognizes the thread of a conversation each
	// request continues: the registry keeps the lifecycle of blocks per
	// thread, and a request is read from where its thread's previous one
	// left off. Without it, no block is ever held or released.
	Threads *threads.Set
	// Heads, when set, remembers how recent bodies open before their
	// messages, which a body that opens the same way is not read for again
	// (see thinking.Heads).
	Heads *thinking.Heads
	// Profiles are what the operator declares of backends' models: their
	// facts apply as if learned, and win over what was learned.
	Profiles Profiles
	// Refresh, when set, brings the registry up to date with what other
	// gateways learned (see package persist); Plan calls it with the keys
	// it does not know before it calls them unknown, and looks them up
	// again when it reports that it read something. It must return
	// quickly, whatever the storage does.
	Refresh func(missing []block.Key) bool
}

// Request is one Messages request on its way to a backend.
type Request struct {
	// Body is the request body as the client sent it.
	Body []byte
	// Header is the request header; it names the conversation.
	Header http.Header
	// Backend is the backend the request goes to, already bounded; "" when
	// only the response will tell (the upstream reverse_proxy dials). The
	// request is then planned for the backend that last answered its
	// conversation.
	Backend string
	// ReadOnly marks requests that must not move the registry's lifecycle,
	// such as token counting: they are rewritten like any other.
	ReadOnly bool
	// Out, when it has room, receives Plan.Body if the body changes, so
	// that the caller can recycle that memory.
	Out []byte
	// Meter, when set, is told what reading the body costs as it grows
	// (see thinking.Resumption); its error stops the plan, which then
	// passes the body on untouched with Passthrough saying why.
	Meter thinking.Meter
}

// Reason says why a block got its action.
type Reason uint8

// Reasons.
const (
	// ReasonOwn: the target produced the block.
	ReasonOwn Reason = iota + 1
	// ReasonUnknown: the registry does not know the block, and only the
	// target has served its conversation, so the block can only be its own.
	ReasonUnknown
	// ReasonForeign: another backend produced the block.
	ReasonForeign
	// ReasonUnknownAfterSwitch: the registry does not know the block, and
	// other backends have served its conversation.
	ReasonUnknownAfterSwitch
	// ReasonRefused: the target refused the block before.
	ReasonRefused
	// ReasonNoTarget: the target is not known before the response (no
	// backend set, and no answer yet in this conversation), so nothing can
	// be called foreign.
	ReasonNoTarget
	// ReasonNotProven: a replay keeps only blocks known to be the target's.
	ReasonNotProven
	// ReasonModelNotCapable: the request's model cannot take thinking (see
	// Models).
	ReasonModelNotCapable
	// ReasonOwnAsTags: the target produced the block as <think> tags in
	// its text, and gets it back that way (see SynthesizedAsTags).
	ReasonOwnAsTags
)

var reasonNames = [...]string{
	ReasonOwn:                "own",
	ReasonUnknown:            "unknown",
	ReasonForeign:            "foreign",
	ReasonUnknownAfterSwitch: "unknown_after_switch",
	ReasonRefused:            "refused",
	ReasonNoTarget:           "no_target",
	ReasonNotProven:          "not_proven",
	ReasonModelNotCapable:    "model_not_capable",
	ReasonOwnAsTags:          "own_as_tags",
}

// String returns the reason as logs name it.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// Decision is what becomes of one block of a request.
type Decision struct {
	Kind    block.Kind
	Action  thinking.Action
	Reason  Reason
	Message int32 // index in messages
	Index   int32 // index in that message's content
	Key     block.Key
	// Origin is the backend that produced the block, "" when unknown.
	Origin string
}

// Plan is the outcome of planning one request.
type Plan struct {
	// Body is what goes upstream: the request's own Body when nothing
	// changed.
	Body []byte
	// Conversation is the request's scope: the session its headers or
	// metadata name, or "" when they name none.
	Conversation string
	// Thread is the thread of that scope whose history the request
	// continues (see Threads), 0 when it is in none; Restored counts the
	// messages whose structure was taken from what reading the thread's
	// previous request learned rather than read again.
	Thread   registry.ThreadID
	Restored int
	// Target is the backend the blocks were decided for: the request's
	// Backend, or the one that last answered the conversation, or "".
	Target string
	// Stream reports that the request asks for a streamed response.
	Stream bool
	// Model is the model the request asks for, and ThinkingCapable whether
	// it may take thinking: it is one of Models, or its backend answered it
	// with thinking, and its backend never refused it thinking since.
	Model           string
	ThinkingCapable bool
	// Facts are what was learned and declared of the model as Target
	// serves it (for a replay, with what its refusal said), for the
	// transport further on to honor what the body cannot say.
	Facts registry.Capability
	// Learned is what the plan of a replay read in the refusal of the
	// backend's model: the replay goes with it, and Confirm records it
	// once the replay succeeded.
	Learned Learned
	// Decisions holds one entry per thinking block, in request order.
	Decisions []Decision
	// Result counts what the rewrite did.
	Result thinking.Result
	// Switched reports that this request moved its conversation to another
	// backend; Previous names the one it left.
	Switched bool
	Previous string
	// Passthrough, when not nil, says why the body goes upstream untouched
	// without its blocks being decided: it is not a Messages request, or it
	// cannot be edited.
	Passthrough error
}

// Plan decides every block of req and returns the body to send. It never
// fails: a body it cannot read or edit goes upstream as it came, and Plan
// says why in Passthrough.
func (p *Policy) Plan(req Request) Plan { return p.plan(req, nil) }

// plan is Plan, or the plan of a replay when r is not nil (see Replay).
func (p *Policy) plan(req Request, r *replay) Plan {
	pl := Plan{Body: req.Body}
	var m *threads.Match
	var find thinking.Finder
	named := headerConversation(req.Header)
	if p.Threads != nil {
		m = threads.NewMatch(named)
		find = func(body []byte, o thinking.Opening) thinking.From { return p.Threads.Find(m, body, o) }
	}
	parsed, err := thinking.ResumeWith(req.Body, thinking.Resumption{Find: find, Meter: req.Meter, Heads: p.Heads})
	if err != nil {
		if m != nil {
			p.Threads.Keep(m, nil)
		}
		pl.Passthrough = err
		return pl
	}
	defer parsed.Release()
	pl.Stream = parsed.Stream()
	pl.Restored = parsed.Restored()
	pl.Model = parsed.Model()
	pl.Conversation = conversationOf(named, parsed.UserID)

	blocks := parsed.Blocks()
	// Requests without any thinking (title generation, safety checks) share
	// the session, not the history: they never move the lifecycle, nor
	// start or continue a thread; a replay moved it already.
	mainTurn := len(blocks) > 0 || parsed.ThinkingOn()
	track := !req.ReadOnly && r == nil && mainTurn
	if m != nil {
		var hist *thinking.History
		if track {
			hist = parsed.History()
		}
		pl.Thread = p.Threads.Settle(m, pl.Conversation, parsed.Messages(), hist, track)
		defer p.Threads.Keep(m, parsed.Save)
	}
	sc := scratches.Get().(*scratch)
	defer sc.recycle()
	sc.keys = slices.Grow(sc.keys, len(blocks))
	for i := range blocks {
		sc.keys = append(sc.keys, blocks[i].Key)
	}
	rr := registry.Request{
		Conversation: pl.Conversation,
		Thread:       pl.Thread,
		Backend:      req.Backend,
		ServedLater:  req.Backend == "",
		Keys:         sc.keys,
		Track:        track,
		Origins:      sc.origins,
		Refused:      sc.refused,
	}
	if rr.ServedLater {
		rr.Backend = p.Registry.Last(pl.Conversation)
	}
	adm := p.Registry.Admit(rr)
	if p.Refresh != nil && slices.Contains(adm.Origins, "") {
		// Another gateway sharing the storage may know what this one does
		// not: the blocks, and in auto mode who answered last.
		for i, o := range adm.Origins {
			if o == "" {
				sc.missing = append(sc.missing, sc.keys[i])
			}
		}
		if p.Refresh(sc.missing) {
			rr.Track = false
			if rr.ServedLater {
				rr.Backend = p.Registry.Last(pl.Conversation)
			}
			adm2 := p.Registry.Admit(rr)
			adm.Origins, adm.Refused, adm.Mixed = adm2.Origins, adm2.Refused, adm2.Mixed
		}
	}
	sc.origins, sc.refused = adm.Origins, adm.Refused
	pl.Target = rr.Backend
	if r.cautious() && rr.ServedLater {
		// Under load balancing the replay may reach any upstream: nothing
		// is proven to be its own.
		pl.Target = ""
	}
	pl.Switched, pl.Previous = adm.Switched, adm.Previous
	p.applyCapabilities(&pl, parsed, r)

	pl.Decisions = decisionsFor(len(blocks))
	sc.actions = slices.Grow(sc.actions, len(blocks))
	cautious := r.cautious()
	for i := range blocks {
		b, d := &blocks[i], &pl.Decisions[i]
		*d = Decision{Kind: b.Kind, Message: b.Message, Index: b.Index, Key: b.Key, Origin: adm.Origins[i]}
		d.Action, d.Reason = p.decide(d.Origin, pl.Target, adm.Mixed, adm.Refused[i], cautious)
		if b.Synthesized {
			d.Action, d.Reason = p.decideSynthesized(*d, pl.Target, b.Reasoning)
		}
		if !pl.ThinkingCapable {
			d.Action, d.Reason = thinking.Strip, ReasonModelNotCapable
		}
		sc.actions = append(sc.actions, d.Action)
	}
	parsed.Output(req.Out)
	if r.cautious() {
		pl.Body, pl.Result, pl.Passthrough = parsed.RewriteCautiously(sc.actions)
	} else {
		pl.Body, pl.Result, pl.Passthrough = parsed.Rewrite(sc.actions)
	}
	return pl
}

// applyCapabilities decides whether the request's model may take thinking,
// what it goes without, and what shape it takes (a thinking type, thinking
// on the messages that must hold it), from what was learned and declared
// of it as the target serves it; a replay goes with what its refusal says
// too.
func (p *Policy) applyCapabilities(pl *Plan, parsed *thinking.Request, r *replay) {
	backend := pl.Target
	var learned registry.Capability
	if r != nil && r.facts != 0 {
		// The replay goes with what the refusal says; the registry learns
		// it only once the replay succeeded (see Confirm).
		backend = r.refusal.Backend
		pl.Learned = Learned{Backend: backend, Model: BoundedID(pl.Model), Facts: r.facts, Why: r.refusal.Message}
		learned = r.facts
	}
	facts := p.Registry.Capabilities(backend, BoundedID(pl.Model)).With(learned).Override(p.Profiles.Facts(backend, pl.Model))
	pl.Facts = facts
	pl.ThinkingCapable = (p.Models.Capable(pl.Model) || facts&registry.Thinks != 0) && facts&registry.CannotThink == 0
	parsed.Omit(omissions(facts))
	parsed.Retype(thinkingType(facts))
	if pl.ThinkingCapable {
		parsed.WantThinkingBack(thinkingBack(facts))
	}
}

// decide returns the action for a block produced by origin ("" when
// unknown) on its way to target ("" when unknown); mixed reports that other
// backends served the block's conversation, refused that the target refused
// the block before. A replay keeps only what is proven to be the target's.
func (p *Policy) decide(origin, target string, mixed, refused, replay bool) (thinking.Action, Reason) {
	switch {
	case refused:
		return p.Foreign, ReasonRefused
	case origin != "" && origin == target:
		return thinking.Keep, ReasonOwn
	case replay:
		return p.Foreign, ReasonNotProven
	case target == "":
		return thinking.Keep, ReasonNoTarget
	case origin == "" && !mixed:
		return thinking.Keep, ReasonUnknown
	case origin == "":
		return p.Foreign, ReasonUnknownAfterSwitch
	}
	return p.Foreign, ReasonForeign
}

// decideSynthesized decides a block this module made from a backend's
// think tags: it goes only to the backend that produced it, as it
// expects it (see SynthesizedAsTags); its signature is this module's, which
// any backend that checks signatures refuses, so a synthesized block whose
// producer is not known to be the target is foreign. A block made from a
// chat-completions server's reasoning (reasoning) always goes back as a
// thinking block: the transport that made it puts it where its server
// reads reasoning.
func (p *Policy) decideSynthesized(d Decision, target string, reasoning bool) (thinking.Action, Reason) {
	switch {
	case d.Origin == "" || d.Origin != target:
		return p.Foreign, ReasonForeign
	case d.Action != thinking.Keep:
		return d.Action, d.Reason
	case p.SynthesizedAsTags && !reasoning:
		return thinking.KeepAsTags, ReasonOwnAsTags
	}
	return d.Action, d.Reason
}

// decisions recycles Plan.Decisions (see Plan.Release).
var decisions = sync.Pool{New: func() any { return new([]Decision) }}

// decisionsFor returns a slice of n decisions, recycled when it can be.
func decisionsFor(n int) []Decision {
	d := decisions.Get().(*[]Decision)
	return slices.Grow((*d)[:0], n)[:n]
}

// Release recycles the plan's Decisions, which must not be used afterwards.
// Everything else in the plan stays valid.
func (pl *Plan) Release() {
	if cap(pl.Decisions) == 0 {
		return
	}
	d := pl.Decisions[:0]
	clear(pl.Decisions[:cap(pl.Decisions)])
	pl.Decisions = nil
	if cap(d) <= maxPooled {
		decisions.Put(&d)
	}
}

// maxPooled bounds the decisions and keys a plan recycled for reuse keeps
// the memory of (see thinking's own bound).
const maxPooled = 16 << 10

// scratch holds the per-request slices Plan only needs while it runs.
type scratch struct {
	keys    []block.Key
	missing []block.Key
	origins []string
	refused []bool
	actions []thinking.Action
}

// recycle gives sc back for reuse, unless it grew too large to keep.
func (sc *scratch) recycle() {
	if cap(sc.keys) > maxPooled {
		return
	}
	sc.reset()
	scratches.Put(sc)
}

// reset empties the slices for the next request, letting go of backend
// names.
func (sc *scratch) reset() {
	clear(sc.origins)
	sc.keys, sc.missing, sc.origins, sc.refused, sc.actions = sc.keys[:0], sc.missing[:0], sc.origins[:0], sc.refused[:0], sc.actions[:0]
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}
