package gemini

import "github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"

// response is what the translation reads of a GenerateContentResponse.
type response struct {
	parts                          []partFields // of the first candidate
	finish, usage, responseID, err jsonscan.Value
	finishMessage                  jsonscan.Value
	blocked                        bool // the prompt was blocked: no candidate
	candidate                      bool // the response has a candidate
	walked                         bool // the response is an object walked to its end
	end                            int  // where the object ends, once walked
}

// partFields are the members of a part the translation reads.
type partFields struct {
	call, text, thought, signature jsonscan.Value
}

// readResponse reads a GenerateContentResponse in one walk that goes down
// into the first candidate, its content and each of its parts rather than
// passing over them and coming back: a chunk's text is passed over once,
// not once at each level above it. The parts are appended to parts[:0].
// A member given twice counts by its last occurrence.
func readResponse(v jsonscan.Value, parts []partFields) response {
	r := response{parts: parts[:0]}
	if v.Kind() != jsonscan.Object {
		return r
	}
	var name [32]byte
	var feedback jsonscan.Value
	it := jsonscan.Members(v, 0)
	for key, start, ok := it.Next(); ok; key, start, ok = it.Next() {
		switch string(jsonscan.Name(key, &name)) {
		case "candidates":
			r.parts, r.finish, r.finishMessage, r.candidate = r.parts[:0], nil, nil, false
			end, ok := r.candidates(v, start)
			descend(&it, end, ok)
		case "usageMetadata":
			r.usage = item(&it, v, start)
		case "promptFeedback":
			feedback = item(&it, v, start)
		case "error":
			r.err = item(&it, v, start)
		case "responseId":
			r.responseID = item(&it, v, start)
		}
	}
	r.blocked = !r.candidate && feedback.Get("blockReason").Exists()
	r.walked = it.Err() == nil
	r.end = it.End()
	return r
}

// whole reports whether the walk read all of v: an object walked to its
// end, and nothing after it. It is all the translation checks of an
// answer, streamed or not: the values it passes on are checked (or
// repaired) where they are, the rest only read.
func (r *response) whole(v jsonscan.Value) bool { return r.walked && r.end == len(v) }

// candidates reads the first candidate of the array at b[i] and passes
// over the others. Like each walk below, it returns where the value ends
// and whether it walked it to its end.
func (r *response) candidates(b []byte, i int) (int, bool) {
	it := jsonscan.Elements(b, i)
	for _, start, ok := it.Next(); ok; _, start, ok = it.Next() {
		if !r.candidate {
			r.candidate = true
			end, ok := r.readCandidate(b, start)
			descend(&it, end, ok)
		}
	}
	return it.End(), it.Err() == nil
}

// readCandidate reads the content, finishReason and finishMessage of the
// candidate at b[i].
func (r *response) readCandidate(b []byte, i int) (int, bool) {
	if b[i] != '{' {
		return 0, false
	}
	var name [32]byte
	it := jsonscan.Members(b, i)
	for key, start, ok := it.Next(); ok; key, start, ok = it.Next() {
		switch string(jsonscan.Name(key, &name)) {
		case "content":
			r.parts = r.parts[:0]
			end, ok := r.content(b, start)
			descend(&it, end, ok)
		case "finishReason":
			r.finish = item(&it, b, start)
		case "finishMessage":
			r.finishMessage = item(&it, b, start)
		}
	}
	return it.End(), it.Err() == nil
}

// content reads the parts of the content at b[i].
func (r *response) content(b []byte, i int) (int, bool) {
	if b[i] != '{' {
		return 0, false
	}
	var name [32]byte
	it := jsonscan.Members(b, i)
	for key, start, ok := it.Next(); ok; key, start, ok = it.Next() {
		if string(jsonscan.Name(key, &name)) == "parts" {
			r.parts = r.parts[:0]
			end, ok := r.partList(b, start)
			descend(&it, end, ok)
		}
	}
	return it.End(), it.Err() == nil
}

// partList reads each part of the array at b[i]; an element that is not
// an object is a part with none of the members read.
func (r *response) partList(b []byte, i int) (int, bool) {
	if b[i] != '[' {
		return 0, false
	}
	it := jsonscan.Elements(b, i)
	for _, start, ok := it.Next(); ok; _, start, ok = it.Next() {
		var p partFields
		if b[start] == '{' {
			end, ok := p.read(b, start)
			descend(&it, end, ok)
		}
		r.parts = append(r.parts, p)
	}
	return it.End(), it.Err() == nil
}

// read reads the members of the part at b[i].
func (p *partFields) read(b []byte, i int) (int, bool) {
	var name [32]byte
	it := jsonscan.Members(b, i)
	for key, start, ok := it.Next(); ok; key, start, ok = it.Next() {
		switch string(jsonscan.Name(key, &name)) {
		case "functionCall":
			p.call = item(&it, b, start)
		case "text":
			p.text = item(&it, b, start)
		case "thought":
			p.thought = item(&it, b, start)
		case "thoughtSignature":
			p.signature = item(&it, b, start)
		}
	}
	return it.End(), it.Err() == nil
}

// descend ends the iterator's current value where a walk into it ended,
// or passes over the value when the walk did not read it to its end.
func descend(it *jsonscan.Iter, end int, ok bool) {
	if ok {
		it.SetEnd(end)
	} else {
		it.Skip()
	}
}

// item passes over the iterator's current value, which starts at b[start],
// and returns it.
func item(it *jsonscan.Iter, b []byte, start int) jsonscan.Value {
	end, ok := it.Skip()
	if !ok {
		return nil
	}
	return jsonscan.Value(b[start:end])
}
