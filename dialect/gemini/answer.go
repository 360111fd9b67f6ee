package gemini

import (
	"bytes"
	"errors"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// ErrNotAnswer says an upstream answer is not a GenerateContentResponse.
var ErrNotAnswer = errors.New("not a Gemini answer: want a JSON object")

// TranslateAnswer translates a whole generateContent answer into a
// Messages answer, with the blocks a stream of it would give (see blocks),
// the usage (the thoughts counted as output) and the stop reason. The
// answer is read as a stream's event is (see response.whole), so that the
// same bytes give the same answer either way. An answer the model failed
// to produce is a *NoAnswer.
func TranslateAnswer(body []byte, opts AnswerOptions) ([]byte, error) {
	v := jsonscan.Value(bytes.TrimSpace(body))
	if v.Kind() != jsonscan.Object {
		return nil, ErrNotAnswer
	}
	r := readResponse(v, nil)
	if !r.whole(v) {
		return nil, ErrNotAnswer
	}
	j := jsonSink{dst: make([]byte, 0, len(v)+256)}
	j.dst = append(j.dst, `{"id":"msg_`...)
	j.dst = append(j.dst, messageID(v.Get("responseId"))...)
	j.dst = append(j.dst, `","type":"message","role":"assistant","model":`...)
	j.dst = jsonstr.Quote(j.dst, []byte(opts.Model))
	j.dst = append(j.dst, `,"content":[`...)
	b := newBlocks(opts, &j)
	for i := range r.parts {
		b.part(&r.parts[i])
	}
	b.finish()
	var u usage
	u.read(r.usage)
	var finish []byte
	if f := r.finish; f.Kind() == jsonscan.String {
		finish = f[1 : len(f)-1]
	}
	if e := noAnswer(finish, r.finishMessage, b.answered); e != nil {
		return nil, e
	}
	j.dst = append(j.dst, `],"stop_reason":"`...)
	j.dst = append(j.dst, stopReason(finish, b.calls, r.blocked)...)
	j.dst = append(j.dst, `","stop_sequence":null,"usage":`...)
	j.dst = u.messages(opts.InputTokens).AppendJSON(j.dst)
	return append(j.dst, '}'), nil
}

// jsonSink writes blocks into the content array of a JSON message.
type jsonSink struct {
	dst []byte
	n   int
}

func (j *jsonSink) next() {
	if j.n > 0 {
		j.dst = append(j.dst, ',')
	}
	j.n++
}

func (j *jsonSink) open(k kind) {
	j.next()
	if k == thinkingBlock {
		j.dst = append(j.dst, `{"type":"thinking","thinking":"`...)
	} else {
		j.dst = append(j.dst, `{"type":"text","text":"`...)
	}
}

// delta appends the value of lit, escaped, inside the open string.
func (j *jsonSink) delta(_ kind, lit []byte) { j.dst = jsonstr.RequoteAll(j.dst, lit[1:len(lit)-1]) }

func (j *jsonSink) close(k kind, signature string) {
	j.dst = append(j.dst, '"')
	if k == thinkingBlock {
		j.dst = append(j.dst, `,"signature":`...)
		j.dst = jsonstr.Quote(j.dst, []byte(signature))
	}
	j.dst = append(j.dst, '}')
}

func (j *jsonSink) thinking(signature string) {
	j.open(thinkingBlock)
	j.close(thinkingBlock, signature)
}

func (j *jsonSink) tool(id []byte, name jsonscan.Value, input []byte) {
	j.next()
	j.dst = append(j.dst, `{"type":"tool_use","id":`...)
	j.dst = jsonstr.Quote(j.dst, id)
	j.dst = append(j.dst, `,"name":`...)
	j.dst = appendName(j.dst, name)
	j.dst = append(j.dst, `,"input":`...)
	j.dst = append(j.dst, input...)
	j.dst = append(j.dst, '}')
}
