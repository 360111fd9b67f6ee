package thinking

import (
	"bytes"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
)

// configEdits returns the edits of the top-level members a rewrite
// changes: the thinking config and every clear_thinking_* context edit go
// when thinking goes off (the API refuses them then), context_management
// too when nothing else is left in it; the fields omitted for the backend
// (see Omit) go; and the thinking config changes type (see Retype).
func (r *Request) configEdits(rw *rewrite) ([]edit, error) {
	drop := rw.res.DroppedThinkingConfig || rw.dropEdits
	omit, retype := rw.res.Omitted, rw.res.Retyped
	if !drop && omit == 0 && retype == "" {
		return nil, nil
	}
	remove := make([]bool, len(r.members))
	var edits []edit
	for i, m := range r.members {
		switch m.name {
		case thinkingMember:
			switch {
			case drop || omit&OmitThinkingOff != 0:
				remove[i] = true
			case retype != "" || omit&OmitThinkingDisplay != 0:
				edits = append(edits, edit{span: m.value, repl: r.thinkingConfigAs(retype, omit&OmitThinkingDisplay != 0)})
				if effort := r.carriedEffort(); retype == "adaptive" && effort != "" {
					edits = append(edits, r.effortEdit(m, effort))
				}
			}
		case contextMember:
			switch {
			case omit&OmitContextManagement != 0:
				remove[i] = true
			case r.contextEdits.End == 0 || !drop && omit&OmitClearThinking == 0:
			default:
				kept, dropped, left, err := r.keptContextEdits()
				if err != nil {
					return nil, err
				}
				switch {
				case left == 0 && r.contextOnlyEdits:
					remove[i] = true
				case dropped > 0:
					edits = append(edits, edit{span: r.contextEdits, repl: kept})
				}
			}
		}
	}
	return append(edits, removeMembers(r.members, remove)...), nil
}

// keptContextEdits rebuilds context_management.edits without the
// clear_thinking_* edits, reporting how many were dropped and left.
func (r *Request) keptContextEdits() (kept []byte, dropped, left int, err error) {
	b := r.body
	kept = append(kept, '[')
	it := jsonscan.Elements(b, r.contextEdits.Start)
	for _, edit, ok := it.Item(); ok; _, edit, ok = it.Item() {
		if bytes.HasPrefix(editType(edit), []byte("clear_thinking_")) {
			dropped++
			continue
		}
		if left > 0 {
			kept = append(kept, ',')
		}
		left++
		kept = append(kept, edit...)
	}
	_, err = finish(&it)
	return append(kept, ']'), dropped, left, err
}

// editType returns the type of a context edit, or nil when it is not an
// object with a string type.
func editType(edit []byte) []byte {
	it := jsonscan.Members(edit, 0)
	var buf [32]byte
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		if string(jsonscan.Name(key, &buf)) == "type" {
			return jsonscan.Name(value, &buf)
		}
	}
	return nil
}

// removeMembers returns the edits that cut the marked members out of the
// top-level object, each maximal run of them together with one separating
// comma, so the object stays valid however many go.
func removeMembers(ms []member, remove []bool) []edit {
	var edits []edit
	for i := 0; i < len(ms); {
		if !remove[i] {
			i++
			continue
		}
		j := i
		for j+1 < len(ms) && remove[j+1] {
			j++
		}
		switch {
		case i > 0: // from the end of the member before the run
			edits = append(edits, edit{span: span{ms[i-1].value.End, ms[j].value.End}})
		case j+1 < len(ms): // up to the member after the run
			edits = append(edits, edit{span: span{ms[0].key.Start, ms[j+1].key.Start}})
		default:
			edits = append(edits, edit{span: span{ms[0].key.Start, ms[j].value.End}})
		}
		i = j + 1
	}
	return edits
}
