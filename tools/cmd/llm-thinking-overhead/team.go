package main

import (
	"fmt"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// The loads of clients other than one Claude Code session on its own:
// clients that name no session (AI SDK apps, other agents), several
// clients at once, a team's many sessions, and an answer of text deltas
// after a sizeable request.

// textStreamRequestSize is the size of the text-delta stream's request.
const textStreamRequestSize = 64 << 10

// teamLoads builds the loads with several clients.
func teamLoads(capture []byte, message *reply) (anonymous256, anonymous1M, sessions8, sessions64, textStream *load, err error) {
	if anonymous256, err = anonymousLoad("256 KiB, no session, 4 clients", "256k-anonymous", capture, 256<<10, 4, message); err != nil {
		return
	}
	if anonymous1M, err = anonymousLoad("1 MiB, no session, 2 clients", "1m-anonymous", capture, 1<<20, 2, message); err != nil {
		return
	}
	if sessions8, err = sessionsLoad("1 MiB, 4 clients over 8 sessions", "1m-8sessions", capture, 8, message); err != nil {
		return
	}
	if sessions64, err = sessionsLoad("1 MiB, 4 clients over 64 sessions", "1m-64sessions", capture, 64, message); err != nil {
		return
	}
	if textStream, err = sessionLoad(fmt.Sprintf("64 KiB, SSE of %d text deltas, 4 clients", streamEvents), "64k-text-sse", capture, textStreamRequestSize, 0, sseReply(streamEvents)); err != nil {
		return
	}
	textStream.clients = 4
	return
}

// anonymousLoad is a session of size that names no session, neither in a
// header nor in metadata.user_id, sent by clients clients at once, the same
// body each time; the registry knows none of its blocks (see seeded).
func anonymousLoad(name, slug string, capture []byte, size, clients int, message *reply) (*load, error) {
	l, err := sessionLoad(name, slug, capture, size, 0, message)
	if err != nil {
		return nil, err
	}
	if l.body, err = withoutMember(l.body, "metadata"); err != nil {
		return nil, fmt.Errorf("load %q: %w", name, err)
	}
	l.clients, l.anonymous = clients, true
	return l, nil
}

// sessionsLoad is a 1 MiB session sent by 4 clients that cycle over n
// sessions, as a team's gateway serves them.
func sessionsLoad(name, slug string, capture []byte, n int, message *reply) (*load, error) {
	l, err := sessionLoad(name, slug, capture, 1<<20, 0, message)
	if err != nil {
		return nil, err
	}
	l.clients = 4
	for i := range n {
		l.sessions = append(l.sessions, fmt.Sprintf("bench-%s-%02d", slug, i))
	}
	return l, nil
}

// withoutMember returns the JSON object body without its top-level member
// name, every other byte as it was.
func withoutMember(body []byte, name string) ([]byte, error) {
	var buf [32]byte
	it := jsonscan.Members(body, jsonscan.SkipSpace(body, 0))
	prevEnd := -1 // where the member before ends: the cut starts at its comma
	for key, _, ok := it.Next(); ok; key, _, ok = it.Next() {
		end, ok := it.Skip()
		if !ok {
			break
		}
		if string(jsonscan.Name(key, &buf)) == name && prevEnd >= 0 {
			return append(body[:prevEnd:prevEnd], body[end:]...), nil
		}
		prevEnd = end
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no member %q after the first", name)
}
