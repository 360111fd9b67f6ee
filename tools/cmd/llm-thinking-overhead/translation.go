package main

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
)

// The translated loads: the upstream speaks an API other than Messages
// and answers streamRequest with a stream of its own. Plain reverse_proxy
// relays that stream as it is; llm_thinking's gateway reaches the
// upstream through a transport that translates the request and every
// chunk of the answer, so its client receives a Messages stream. What the
// transport costs is the difference. Each API (chat.go, gemini.go, responses.go) gives
// its transport, its paths, the request the transport sends and the
// stream the upstream answers; the rest is shared.

// translatedChunks is how many text chunks a translated load's upstream
// stream carries.
const translatedChunks = 2000

// An api is an upstream API that llm_thinking's gateway reaches through a
// transport translating to and from it.
type api struct {
	name string // as the report names it: "chat completions"
	// slug names the load in paths; the gateway routes the paths with it
	// through transport.
	slug string
	// transport is the transport's directive in the reverse_proxy block,
	// with its block if it has one.
	transport string
	// upstreamPath returns the path the transport asks the upstream for,
	// given the client's path, which ends in /v1/messages; query is the
	// query it asks with.
	upstreamPath func(path string) string
	query        string
	// translate returns the request body the transport sends the upstream
	// for streamRequest, the upstream's native streamed answer, and the
	// Messages stream the transport makes of it for the client.
	translate func() (request []byte, native, translated *reply, err error)
}

// transportName returns the API's transport, its directive without its
// block: "transport gemini".
func (a *api) transportName() string {
	name, _, _ := strings.Cut(a.transport, " {")
	return name
}

// apis are the APIs of the translated loads, in the report's order.
var apis = []*api{chatAPI, geminiAPI, responsesAPI}

// A translation is what a load through llm_thinking's gateway is
// translated to and from.
type translation struct {
	api     *api
	request []byte // the body the upstream gets
	answer  *reply // what the client gets
}

// translatedLoads returns a load per API.
func translatedLoads() ([]*load, error) {
	var ls []*load
	for _, a := range apis {
		request, native, translated, err := a.translate()
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", a.name, err)
		}
		ls = append(ls, &load{
			name:        fmt.Sprintf("%s SSE, %d chunks", a.name, translatedChunks),
			slug:        a.slug,
			body:        streamRequest,
			reply:       native,
			translation: &translation{api: a, request: request, answer: translated},
		})
	}
	return ls, nil
}

// A chunker translates the data of one upstream event into Messages
// events, as chatcompletions.Stream and gemini.Stream do.
type chunker interface {
	Chunk(dst, data []byte) []byte
}

// translatedReply returns what a transport gives the client for the
// upstream stream native, translated by s: an event group per upstream
// event, as the transport flushes them.
func translatedReply(native *reply, s chunker) *reply {
	var groups [][]byte
	for _, ev := range native.events {
		_, data, _ := strings.Cut("\n"+string(ev), "\ndata: ")
		data, _, _ = strings.Cut(data, "\n")
		data = strings.TrimRight(data, "\r")
		groups = append(groups, s.Chunk(nil, []byte(data)))
	}
	return eventStream(groups)
}

// eventStream returns the reply made of the SSE events (or event groups)
// events.
func eventStream(events [][]byte) *reply {
	body := slices.Concat(events...)
	return &reply{contentType: "text/event-stream", events: events, body: body, sum: sha256.Sum256(body)}
}

// translated reports whether the load goes through a transport that
// translates it when it goes through g.
func (l *load) translated(g gateway) bool { return g.rewrites() && l.translation != nil }

// answer returns what the client of gateway g must receive for the load.
func (l *load) answer(g gateway) *reply {
	if l.translated(g) {
		return l.translation.answer
	}
	return l.reply
}

// upstreamPath returns the path the upstream gets for a request to path
// through g, and the query.
func (l *load) upstreamPath(g gateway, path string) (string, string) {
	if l.translated(g) {
		return l.translation.api.upstreamPath(path), l.translation.api.query
	}
	return path, ""
}

// upstreamBody returns the request body the upstream gets through g.
func (l *load) upstreamBody(g gateway) []byte {
	if l.translated(g) {
		return l.translation.request
	}
	return l.body
}
