package policy

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/request/thinking"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/state/registry"
)

// Refusal is an upstream's 400 about the thinking of a request it got.
type Refusal struct {
	// Backend is the backend that refused: the request's backend name, or
	// the upstream that answered.
	Backend string
	// Message is the upstream's error message.
	Message string
	// Sent is the body the upstream refused.
	Sent []byte
	// Header is the header of the request refused: servers quote some of
	// it back (see evidence).
	Header http.Header
}

// boundRefusal is the piece of the refusal of a block whose conversation
// changed before it since it was produced.
const boundRefusal = "bound to a different conversation"

// Short pieces of the API's thinking error messages (see the protocol
// notes): matched as substrings, never as whole sentences, since the API
// words them differently from time to time.
var (
	// blockRefusals name one block the upstream does not accept.
	blockRefusals = []string{
		"Invalid `signature`",
		"Invalid `data`",
		"signature: Field required",
		boundRefusal,
	}
	// signatureRefusals refuse a request for the signatures of its
	// thinking without naming a block: Gemini's thought signatures and
	// OpenAI's encrypted reasoning, which transports gemini and responses
	// bring back in the Anthropic envelope (a key, project or
	// organization that changed, a signature it no longer takes).
	signatureRefusals = []string{
		"Corrupted thought signature",
		"thought_signature",
		"Invalid thought signature",
		"Thought signature is not valid",
		// invalid_encrypted_content: "The encrypted content gAAA... could
		// not be verified." (another organization), "... could not be
		// decrypted or parsed."
		"The encrypted content ",
	}
	// structureRefusals are about where thinking is, or is not.
	structureRefusals = []string{
		"thinking: Field required",
		"cannot be modified",
		"must start with a thinking block",
		"cannot contain `thinking`",
		"cannot be `thinking`",
		"requires `thinking` to be enabled",
	}
)

// RefusalMessage returns the message of an error envelope when it refuses
// a request for its thinking: an Anthropic invalid_request_error whose
// message names one of the thinking rules, or any error whose message says
// what the backend's model does not take (see capabilityRefusals), which
// servers behind other gateways wrap in envelopes of their own; FastAPI
// servers' validation errors ({"detail":[...]}, see
// messagesapi.DetailMessage) are read as invalid_request_errors. Any other
// body reports false. Whether a fact can be learned from the message is
// for Replay to decide, which knows the request.
func RefusalMessage(body []byte) (string, bool) {
	var errObj, detail []byte
	var buf [32]byte
	it := jsonscan.Members(body, jsonscan.SkipSpace(body, 0))
	for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
		switch string(jsonscan.Name(k, &buf)) {
		case "error":
			errObj = v
		case "detail":
			detail = v
		}
	}
	if it.Err() != nil {
		return "", false
	}
	var text string
	var request bool // an invalid_request_error
	switch {
	case errObj != nil:
		var typ, msg []byte
		it = jsonscan.Members(errObj, 0)
		for k, v, ok := it.Item(); ok; k, v, ok = it.Item() {
			switch string(jsonscan.Name(k, &buf)) {
			case "type":
				typ = v
			case "message":
				msg = v
			}
		}
		if it.Err() != nil || msg == nil {
			return "", false
		}
		decoded, ok := jsonstr.Append(nil, msg)
		if !ok {
			return "", false
		}
		text, request = string(decoded), string(jsonscan.Name(typ, &buf)) == "invalid_request_error"
	case detail != nil:
		text, request = messagesapi.DetailMessage(jsonscan.Value(detail)), true
	default:
		return "", false
	}
	if text == "" {
		return "", false
	}
	if request && thinkingRule(text) {
		return text, true
	}
	if refusalFacts(newEvidence(text, nil, nil)) != 0 {
		return text, true
	}
	return "", false
}

// thinkingRule reports whether msg names one of the API's thinking rules.
func thinkingRule(msg string) bool {
	for _, marks := range [][]string{blockRefusals, signatureRefusals, structureRefusals} {
		for _, mark := range marks {
			if strings.Contains(msg, mark) {
				return true
			}
		}
	}
	return false
}

// Replay plans the one retry of req after refusal. A refusal that says
// what the backend's model does not take (see capabilityRefusals) is
// learned, and the replay is planned as any request, without what was
// learned; the next requests go without it too. Any other refusal is about
// the blocks: what the upstream refused is remembered, only the blocks
// proven to be the target's are kept (none when req names no backend:
// under load balancing the replay may reach any upstream), and the body is
// rewritten cautiously, so that the replay cannot be refused for its
// thinking.
func (p *Policy) Replay(req Request, refusal Refusal) Plan {
	p.Registry.CountRetry()
	r := replay{refusal: &refusal, facts: refusalFacts(newEvidence(refusal.Message, refusal.Sent, refusal.Header))}
	if r.facts == 0 {
		p.rememberRefusal(refusal)
	}
	pl := p.plan(req, &r)
	pl.Switched = false
	return pl
}

// replay is what planning a replay needs: the refusal, and what it says of
// the backend's model.
type replay struct {
	refusal *Refusal
	facts   registry.Capability
}

// cautious reports whether the replay keeps only blocks proven to be the
// target's: the refusal was about the blocks.
func (r *replay) cautious() bool { return r != nil && r.facts == 0 }

// rememberRefusal records the block a refusal names as refused by its
// backend. When that block was the backend's own, as far as the registry
// knew, either the backend no longer accepts what it signed before (its key
// or account changed): every block of the request that was kept as its own
// is refused with it; or, for a refusal that says the block is bound to a
// different conversation, something before it changed since the backend
// produced it, and so for every later block of the backend's: those are
// refused with it, the earlier ones are still good. Either way the next
// request does not pay the round trip again.
func (p *Policy) rememberRefusal(r Refusal) {
	mi, ci, ok := refusedPosition(r.Message)
	if !ok {
		p.rememberSignatureRefusal(r)
		return
	}
	sent, err := thinking.Parse(r.Sent)
	if err != nil {
		return
	}
	defer sent.Release()
	var named block.Key
	found := false
	keys := make([]block.Key, 0, len(sent.Blocks()))
	for _, b := range sent.Blocks() {
		keys = append(keys, b.Key)
		if int(b.Message) == mi && int(b.Index) == ci {
			named, found = b.Key, true
		}
	}
	if !found {
		return
	}
	adm := p.Registry.Admit(registry.Request{Backend: r.Backend, Keys: keys})
	refused := []block.Key{named}
	from := 0 // the first message whose own blocks go with the named one
	if strings.Contains(r.Message, boundRefusal) {
		from = mi
	}
	for i, k := range keys {
		if k == named && adm.Origins[i] == r.Backend {
			refused = refused[:0]
			for j, o := range adm.Origins {
				if o == r.Backend && int(sent.Blocks()[j].Message) >= from {
					refused = append(refused, keys[j])
				}
			}
			break
		}
	}
	p.Registry.Refuse(r.Backend, refused...)
}

// rememberSignatureRefusal records, for a refusal of the request's
// signatures that names no block (see signatureRefusals), every block of
// the request that was the refusing backend's own as refused by it: its
// signatures are no longer good there (a key or project changed), and the
// replay goes without them (transport gemini then gives the calls of the
// current turn the documented dummy; transport responses sends no
// reasoning items).
func (p *Policy) rememberSignatureRefusal(r Refusal) {
	if !slices.ContainsFunc(signatureRefusals, func(mark string) bool { return strings.Contains(r.Message, mark) }) {
		return
	}
	sent, err := thinking.Parse(r.Sent)
	if err != nil {
		return
	}
	defer sent.Release()
	keys := make([]block.Key, 0, len(sent.Blocks()))
	for _, b := range sent.Blocks() {
		keys = append(keys, b.Key)
	}
	adm := p.Registry.Admit(registry.Request{Backend: r.Backend, Keys: keys})
	refused := keys[:0:0]
	for i, o := range adm.Origins {
		if o == r.Backend {
			refused = append(refused, keys[i])
		}
	}
	p.Registry.Refuse(r.Backend, refused...)
}

// refusedPosition returns the block a refusal names, as
// "messages.N.content.M", when the refusal is about that block itself.
func refusedPosition(msg string) (message, index int, ok bool) {
	isBlock := false
	for _, mark := range blockRefusals {
		isBlock = isBlock || strings.Contains(msg, mark)
	}
	if !isBlock {
		return 0, 0, false
	}
	at := strings.Index(msg, "messages.")
	if at < 0 {
		return 0, 0, false
	}
	n, rest, ok := leadingInt(msg[at+len("messages."):])
	if !ok {
		return 0, 0, false
	}
	rest, ok = strings.CutPrefix(rest, ".content.")
	if !ok {
		return 0, 0, false
	}
	m, _, ok := leadingInt(rest)
	return n, m, ok
}

// leadingInt splits the decimal number at the start of s from the rest.
func leadingInt(s string) (int, string, bool) {
	end := 0
	for end < len(s) && end < 9 && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(s[:end])
	return n, s[end:], err == nil
}
