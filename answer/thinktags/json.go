package thinktags

import (
	"crypto/sha256"
	"errors"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/block"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// RewriteJSON rewrites a non-streaming Messages response body (identity
// encoded): each text block of its content whose text holds think sections
// becomes the thinking and text blocks they give, as the SSE rewriter splits
// the same text. It returns the body and the synthesized blocks. Every other
// byte of the body is kept; a body without tags is returned as it came, the
// same slice. A body that is not valid JSON or not a message object with a
// content array is returned as it came, with an error saying which. It panics
// when opts.Sign is nil.
func RewriteJSON(body []byte, opts Options) ([]byte, []Block, error) {
	if opts.Sign == nil {
		panic("thinktags: RewriteJSON with a nil Sign")
	}
	if !jsonscan.Valid(body) {
		return body, nil, errors.New("thinktags: response body is not valid JSON")
	}
	content, err := contentArray(body)
	if err != nil {
		return body, nil, err
	}
	j := jsonRewrite{body: body, opts: opts, left: maxSections}
	it := jsonscan.Elements(body, content)
	for _, v, ok := it.Next(); ok; _, v, ok = it.Next() {
		end, _ := it.Skip()
		j.elems = append(j.elems, [2]int{v, end})
	}
	for k := range j.elems {
		j.element(k)
	}
	if j.out == nil {
		return body, nil, nil
	}
	j.out = append(j.out, body[j.elems[len(j.elems)-1][1]:]...)
	return j.out, j.blocks, nil
}

// contentArray returns where the content array of the message object body
// starts.
func contentArray(body []byte) (int, error) {
	var typ []byte
	content := -1
	var name [32]byte
	it := jsonscan.Members(body, jsonscan.SkipSpace(body, 0))
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, _ := it.Skip()
		switch string(jsonscan.Name(key, &name)) {
		case "type":
			typ = body[v:end]
		case "content":
			content = v
		}
	}
	if it.Err() != nil || string(jsonscan.Name(typ, &name)) != "message" {
		return 0, errors.New("thinktags: response body is not a message object")
	}
	if content < 0 || body[content] != '[' {
		return 0, errors.New("thinktags: response message has no content array")
	}
	return content, nil
}

// jsonRewrite is the state of one RewriteJSON.
type jsonRewrite struct {
	body  []byte
	opts  Options
	left  int      // sections that may still open
	elems [][2]int // the content blocks, where they are in body
	out   []byte   // the rewritten body, nil until a block changes
	kept  int      // blocks in out, or that will be when it is made

	blocks  []Block
	hasher  block.Hasher
	split   Splitter
	runs    []Run
	scratch []byte
}

// element rewrites the content block elems[k].
func (j *jsonRewrite) element(k int) {
	e := j.elems[k]
	obj := j.body[e[0]:e[1]]
	lit, ok := textLiteral(obj)
	var text []byte
	if ok {
		text, j.scratch, ok = jsonstr.Value(j.scratch[:0], obj[lit[0]:lit[1]])
	}
	if !ok {
		j.keep(k, obj)
		return
	}
	j.split = NewSplitter(j.opts.AssumeOpen && k == 0, j.left)
	j.runs = j.split.Flush(j.split.Split(j.runs[:0], text))
	j.left = j.split.Left()
	if !j.split.Altered() && !hasThinking(j.runs) {
		j.keep(k, obj)
		return
	}
	if j.out == nil {
		j.begin(k)
	}
	for i := 0; i < len(j.runs); {
		n := 1
		for i+n < len(j.runs) && j.runs[i+n].Thinking == j.runs[i].Thinking {
			n++
		}
		j.separate(k, i == 0)
		if j.runs[i].Thinking {
			j.thinkingBlock(j.runs[i : i+n])
		} else {
			j.out = append(j.out, obj[:lit[0]]...)
			j.out = appendRuns(j.out, j.runs[i:i+n])
			j.out = append(j.out, obj[lit[1]:]...)
		}
		j.kept++
		i += n
	}
}

// keep writes the content block elems[k] as it came.
func (j *jsonRewrite) keep(k int, obj []byte) {
	if j.out != nil {
		j.separate(k, true)
		j.out = append(j.out, obj...)
	}
	j.kept++
}

// begin makes out, up to the content block elems[k], when k is the first
// to change: every block before it was kept.
func (j *jsonRewrite) begin(k int) {
	end := j.elems[0][0]
	if k > 0 {
		end = j.elems[k-1][1]
	}
	j.out = append(make([]byte, 0, len(j.body)+len(j.body)/8), j.body[:end]...)
}

// separate writes what comes before the next block: the separator that
// came before elems[k] for its first block, a comma for the others.
func (j *jsonRewrite) separate(k int, first bool) {
	switch {
	case j.kept == 0:
	case first && k > 0:
		j.out = append(j.out, j.body[j.elems[k-1][1]:j.elems[k][0]]...)
	default:
		j.out = append(j.out, ',')
	}
}

// thinkingBlock writes the thinking block of runs and records it.
func (j *jsonRewrite) thinkingBlock(runs []Run) {
	j.hasher.Reset()
	digest := sha256.New()
	for _, r := range runs {
		j.hasher.Write(r.Text)
		digest.Write(r.Text)
	}
	var sum [sha256.Size]byte
	sig := j.opts.Sign([sha256.Size]byte(digest.Sum(sum[:0])))
	j.out = append(j.out, `{"type":"thinking","thinking":`...)
	j.out = appendRuns(j.out, runs)
	j.out = append(j.out, `,"signature":`...)
	j.out = jsonstr.Quote(j.out, []byte(sig))
	j.out = append(j.out, '}')
	j.blocks = append(j.blocks, Block{Index: j.kept, Key: j.hasher.Thinking([]byte(sig))})
}

// appendRuns appends the text of runs as one JSON string literal.
func appendRuns(dst []byte, runs []Run) []byte {
	dst = append(dst, '"')
	for _, r := range runs {
		dst = jsonstr.Escape(dst, r.Text)
	}
	return append(dst, '"')
}

// textLiteral returns where the text literal of a text block object is in
// it, or false when obj is not a text block with a string text. Like
// JSON.parse, the last of duplicate keys wins.
func textLiteral(obj []byte) ([2]int, bool) {
	var typ []byte
	lit := [2]int{-1, -1}
	var name [32]byte
	it := jsonscan.Members(obj, 0)
	for key, v, ok := it.Next(); ok; key, v, ok = it.Next() {
		end, _ := it.Skip()
		switch string(jsonscan.Name(key, &name)) {
		case "type":
			typ = obj[v:end]
		case "text":
			lit = [2]int{v, end}
		}
	}
	ok := it.Err() == nil && lit[0] >= 0 && obj[lit[0]] == '"' && string(jsonscan.Name(typ, &name)) == "text"
	return lit, ok
}
