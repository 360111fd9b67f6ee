package llmtest

import (
	"fmt"
	"net/http"
)

// The conversation rules of the Responses API with "store": false, as a
// ResponsesUpstream applies them to the input items, each in OpenAI's
// words, status and param.

// notPersisted is the 404 for an item the API would have to look up:
// with "store": false it kept nothing.
func notPersisted(id string) *respErr {
	return &respErr{status: http.StatusNotFound, param: "input",
		msg: fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. "+
			"Try again with `store` set to true, or remove this item from your input.", id)}
}

// unverified is the 400 for encrypted_content the API cannot accept, and
// why.
func unverified(token, reason string) *respErr {
	return &respErr{status: http.StatusBadRequest, code: "invalid_encrypted_content",
		msg: fmt.Sprintf("The encrypted content %s could not be verified. Reason: %s", shortToken(token), reason)}
}

func inputRule(msg string, args ...any) *respErr {
	return &respErr{status: http.StatusBadRequest, param: "input", msg: fmt.Sprintf(msg, args...)}
}

// violation returns the refusal of a request the API refuses for what its
// items say, or nil; org is the organization of its key. Called with u.mu
// held.
func (u *ResponsesUpstream) violation(req *respRequest, org string) *respErr {
	if req.store == nil || *req.store {
		return &respErr{status: http.StatusBadRequest, param: "store",
			msg: "This mock of the Responses API models stateless use only: send \"store\": false (the API's default is true)."}
	}
	if e := u.summaryRefused(req, org); e != nil {
		return e
	}
	called := make(map[string]bool)
	var pending []string // calls without their output yet, in order
	for i, it := range req.items {
		switch it.kind {
		case "item_reference":
			return notPersisted(it.id)
		case "reasoning":
			if e := u.reasoningBack(req.items, i, org); e != nil {
				return e
			}
		case "message", "function_call":
			if it.kind == "message" && it.role == "user" && len(pending) > 0 {
				return inputRule("No tool output found for function call %s.", pending[0])
			}
			if rs, ok := u.follows[it.id]; ok && (i == 0 || req.items[i-1].kind != "reasoning" || req.items[i-1].id != rs) {
				return inputRule("Item '%s' of type '%s' was provided without its required 'reasoning' item: '%s'.", it.id, it.kind, rs)
			}
			if it.kind == "function_call" {
				called[it.callID] = true
				pending = append(pending, it.callID)
			}
		case "function_call_output":
			if !called[it.callID] {
				return inputRule("No tool call found for function call output with call_id %s.", it.callID)
			}
			for k, id := range pending {
				if id == it.callID {
					pending = append(pending[:k], pending[k+1:]...)
					break
				}
			}
		}
	}
	if len(pending) > 0 {
		return inputRule("No tool output found for function call %s.", pending[0])
	}
	return nil
}

// reasoningBack checks the reasoning item items[i]: it must carry
// encrypted_content (nothing is stored to look it up by id), sealed by a
// ResponsesUpstream for this item and this organization, and be followed
// by the item that followed it in the answer.
func (u *ResponsesUpstream) reasoningBack(items []respItem, i int, org string) *respErr {
	it := items[i]
	if it.encrypted == nil {
		if it.id == "" {
			return missingParameter(fmt.Sprintf("input[%d].id", i))
		}
		return notPersisted(it.id)
	}
	s, ok := openReasoning(*it.encrypted)
	if !ok || (it.id != "" && s.id != it.id) {
		return unverified(*it.encrypted, "Encrypted content could not be decrypted or parsed.")
	}
	if s.org != org {
		return unverified(*it.encrypted, "Encrypted content organization_id did not match the target organization.")
	}
	if i+1 >= len(items) || !followedBy(items[i+1], s.next) {
		return inputRule("Item '%s' of type 'reasoning' was provided without its required following item.", s.id)
	}
	return nil
}

// followedBy reports whether next may be the item that followed a
// reasoning item in the answer, whose id was id: that item itself, or,
// sent without ids as OpenAI's Codex sends them, a function call or an
// assistant message.
func followedBy(next respItem, id string) bool {
	if next.id != "" {
		return next.id == id
	}
	return next.kind == "function_call" || next.kind == "message" && next.role == "assistant"
}
