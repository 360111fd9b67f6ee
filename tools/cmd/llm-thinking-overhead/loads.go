package main

import (
	"encoding/json"
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
)

// The backends of the blocks: llm_thinking is configured for
// gatewayBackend, and a session after a switch replays blocks that
// foreignBackend produced.
const (
	gatewayBackend = "anthropic"
	foreignBackend = "glm"
)

// foreignBlocks is how many blocks of a session after a switch another
// backend produced.
const foreignBlocks = 10

// streamEvents is how many text deltas the streamed answer carries.
const streamEvents = 2000

// streamRequest is the small request answered with a stream.
var streamRequest = []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`)

// A load is one kind of request whose cost is measured through both
// gateways.
type load struct {
	name  string // as the report names it
	slug  string // in the upstream's paths and the session id
	body  []byte
	reply *reply // what the upstream answers
	// blocks are the body's thinking blocks, as its bytes hold them, and
	// keys their registry keys, in the same order.
	blocks []json.RawMessage
	keys   []block.Key
	// foreign marks the blocks foreignBackend produced: llm_thinking must
	// remove exactly these.
	foreign []bool
	// translation is, for a translated load, what a transport makes of
	// the request and the answer through llm_thinking's gateway (see
	// translation.go); nil for the others.
	translation *translation
	// clients is how many clients send the load at once (one when 0).
	// sessions, when set, are the sessions they cycle over, a request
	// each; anonymous loads name none.
	clients   int
	sessions  []string
	anonymous bool
}

// session returns the X-Claude-Code-Session-Id of the load's n-th request
// from one client, "" for none. Each load is a conversation (or several)
// of its own, so that its blocks' origins are its own.
func (l *load) session(n int) string {
	switch {
	case l.anonymous:
		return ""
	case len(l.sessions) > 0:
		return l.sessions[n%len(l.sessions)]
	}
	return "bench-" + l.slug
}

// concurrency returns how many clients send the load at once.
func (l *load) concurrency() int { return max(1, l.clients) }

// loads are the twelve loads, by what the targets ask of each.
type loads struct {
	unchanged256, unchanged1M *load // nothing to change
	switched256, switched1M   *load // after a switch
	stream                    *load
	// translated are the streams of other APIs that a transport
	// translates, one per API of apis: chat completions, Gemini.
	translated []*load
	// Clients without a session, several clients at once, a team.
	anonymous256, anonymous1M *load // no session, blocks the gateway never saw
	sessions8, sessions64     *load
	textStream                *load // text deltas after a 64 KiB request
}

// all returns the loads in the order the report lists them.
func (ls loads) all() []*load {
	all := []*load{ls.unchanged256, ls.unchanged1M, ls.switched256, ls.switched1M, ls.stream}
	all = append(all, ls.translated...)
	return append(all, ls.anonymous256, ls.anonymous1M, ls.sessions8, ls.sessions64, ls.textStream)
}

// probed returns the streams whose first byte is probed and whose flushes
// are checked (see firstbyte.go and lockstep.go): the SSE stream and the
// translated ones.
func (ls loads) probed() []*load {
	return append([]*load{ls.stream}, ls.translated...)
}

// buildLoads grows the captured session into the session loads and adds
// the streaming ones.
func buildLoads() (loads, error) {
	capture, err := readCapture()
	if err != nil {
		return loads{}, err
	}
	message := jsonReply()
	var ls loads
	if ls.unchanged256, err = sessionLoad("256 KiB, nothing to change", "256k-unchanged", capture, 256<<10, 0, message); err != nil {
		return loads{}, err
	}
	if ls.unchanged1M, err = sessionLoad("1 MiB, nothing to change", "1m-unchanged", capture, 1<<20, 0, message); err != nil {
		return loads{}, err
	}
	if ls.switched256, err = sessionLoad("256 KiB, after a switch", "256k-switched", capture, 256<<10, foreignBlocks, message); err != nil {
		return loads{}, err
	}
	if ls.switched1M, err = sessionLoad("1 MiB, after a switch", "1m-switched", capture, 1<<20, foreignBlocks, message); err != nil {
		return loads{}, err
	}
	ls.stream = &load{
		name:  fmt.Sprintf("SSE, %d events", streamEvents),
		slug:  "sse",
		body:  streamRequest,
		reply: sseReply(streamEvents),
	}
	if ls.translated, err = translatedLoads(); err != nil {
		return loads{}, err
	}
	if ls.anonymous256, ls.anonymous1M, ls.sessions8, ls.sessions64, ls.textStream, err = teamLoads(capture, message); err != nil {
		return loads{}, err
	}
	return ls, nil
}

// sessionLoad returns the load of the capture grown to size and answered
// with message. foreign of its thinking blocks, spread over the history,
// count as produced by foreignBackend, the others by gatewayBackend.
func sessionLoad(name, slug string, capture []byte, size, foreign int, message *reply) (*load, error) {
	body, err := growSession(capture, size, slug+":")
	if err != nil {
		return nil, fmt.Errorf("load %q: %w", name, err)
	}
	blocks, err := thinkingBlocks(body)
	if err != nil {
		return nil, fmt.Errorf("load %q: read the thinking blocks: %w", name, err)
	}
	keys, err := blockKeys(body)
	switch {
	case err != nil:
		return nil, fmt.Errorf("load %q: parse the body as llm_thinking does: %w", name, err)
	case len(keys) != len(blocks):
		return nil, fmt.Errorf("load %q: llm_thinking sees %d thinking blocks, encoding/json %d", name, len(keys), len(blocks))
	case foreign > len(blocks):
		return nil, fmt.Errorf("load %q: %d of its %d thinking blocks cannot be foreign", name, foreign, len(blocks))
	}
	return &load{name: name, slug: slug, body: body, reply: message, blocks: blocks, keys: keys, foreign: spread(len(blocks), foreign)}, nil
}

// spread marks k of n positions, evenly spaced, none at either end.
func spread(n, k int) []bool {
	marked := make([]bool, n)
	for i := range k {
		marked[(2*i+1)*n/(2*k)] = true
	}
	return marked
}

// origin returns the backend that produced block i.
func (l *load) origin(i int) string {
	if l.foreign[i] {
		return foreignBackend
	}
	return gatewayBackend
}

// expectation returns what the upstream must receive when the load goes
// through g: the body byte for byte (its translation, for a translated
// load through llm_thinking), but through llm_thinking without its
// foreign blocks.
func (l *load) expectation(g gateway) expectation {
	if l.translation != nil {
		return newSameBytes(l.upstreamBody(g))
	}
	var kept []json.RawMessage
	for i, b := range l.blocks {
		if !l.foreign[i] {
			kept = append(kept, b)
		}
	}
	if !g.rewrites() || len(kept) == len(l.blocks) {
		return newSameBytes(l.body)
	}
	return newWithoutBlocks(kept, len(l.blocks)-len(kept))
}
