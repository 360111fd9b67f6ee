package llmtest

// ledger remembers what an Upstream produced, so that it can tell whether
// the latest assistant message of a request still holds a response's
// thinking blocks exactly as they were sent. Callers hold Upstream.mu.
type ledger struct {
	// owner maps a tool_use id, a signature or a redacted payload to the
	// index of the response in thinking that produced it.
	owner    map[string]int
	thinking [][]replyBlock
}

func ledgerKeys(b replyBlock) []string {
	switch b.kind {
	case "tool_use":
		return []string{"tool_use:" + b.id}
	case "thinking":
		if b.signed {
			return []string{"signature:" + b.signature}
		}
	case "redacted_thinking":
		return []string{"data:" + b.data}
	}
	return nil
}

func (l *ledger) record(blocks []replyBlock) {
	if l.owner == nil {
		l.owner = map[string]int{}
	}
	idx := len(l.thinking)
	var thinking []replyBlock
	for _, b := range blocks {
		if isThinking(b.kind) {
			thinking = append(thinking, b)
		}
		for _, k := range ledgerKeys(b) {
			l.owner[k] = idx
		}
	}
	l.thinking = append(l.thinking, thinking)
}

// producedThinking returns the thinking blocks of the response that produced
// the first recognisable block of m, and false when m holds none.
func (l *ledger) producedThinking(m message) ([]replyBlock, bool) {
	for _, b := range m.blocks {
		var key string
		switch b.typ {
		case "tool_use":
			id, _ := b.str("id")
			key = "tool_use:" + id
		case "thinking":
			sig, ok := b.str("signature")
			if !ok {
				continue
			}
			key = "signature:" + sig
		case "redacted_thinking":
			data, _ := b.str("data")
			key = "data:" + data
		default:
			continue
		}
		if idx, ok := l.owner[key]; ok {
			return l.thinking[idx], true
		}
	}
	return nil, false
}

// sameAs reports whether the request block b is the produced block p.
func (p replyBlock) sameAs(b block) bool {
	if b.typ != p.kind {
		return false
	}
	if p.kind == "redacted_thinking" {
		data, _ := b.str("data")
		return data == p.data
	}
	text, _ := b.str("thinking")
	sig, hasSig := b.str("signature")
	return text == p.text && hasSig == p.signed && sig == p.signature
}
