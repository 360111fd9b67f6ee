package transport

import (
	"net/http"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/envelope"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/gemini"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/dialect/responses"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/messagesapi"
)

// A signedDialect is the answer side of a dialect whose answers carry
// the upstream's signed reasoning in envelopes (gemini, responses): its
// functions, which take alike options.
type signedDialect struct {
	errorBody func(status int, body []byte) []byte
	stream    func(answerOptions) messagesapi.Translator
	answer    func([]byte, answerOptions) ([]byte, error)
}

// How the answers of transports gemini and responses come back.
var (
	geminiAnswers    = signedAnswers(gemini.ErrorBody, gemini.NewStream, gemini.TranslateAnswer)
	responsesAnswers = signedAnswers(responses.ErrorBody, responses.NewStream, responses.TranslateAnswer)
)

// signedAnswers returns the signedDialect of the functions of a dialect
// whose AnswerOptions, O, are alike answerOptions.
func signedAnswers[O ~struct {
	Model       string
	Signer      envelope.Signer
	InputTokens int
}, S messagesapi.Translator](errorBody func(int, []byte) []byte, newStream func(O) S, answer func([]byte, O) ([]byte, error)) signedDialect {
	return signedDialect{errorBody: errorBody,
		stream: func(o answerOptions) messagesapi.Translator { return newStream(O(o)) },
		answer: func(b []byte, o answerOptions) ([]byte, error) { return answer(b, O(o)) }}
}

// answerOptions are the AnswerOptions of gemini and of responses, which
// are alike: the model the answer names, the signer of its envelopes, the
// input's estimate.
type answerOptions struct {
	Model       string
	Signer      envelope.Signer
	InputTokens int
}

// signedRound is what the rounds of transports gemini and responses keep
// and do alike: the request's translation, its body detached, and the
// signer of its answer's envelopes, with which the answer comes back
// through the dialect, as a stream when the request asked for one or the
// upstream sends one.
type signedRound struct {
	dialect *signedDialect
	tr      messagesapi.Translated
	signer  envelope.Signer
}

// signedBy returns the signedRound of a request whose answer comes back
// through d.
func signedBy(d *signedDialect) signedRound { return signedRound{dialect: d} }

func (s *signedRound) errorBody(status int, body []byte) []byte {
	return s.dialect.errorBody(status, body)
}

func (s *signedRound) options() answerOptions {
	return answerOptions{Model: s.tr.Model, Signer: s.signer, InputTokens: s.tr.InputTokens}
}

func (s *signedRound) stream(resp *http.Response) messagesapi.Translator {
	if !s.tr.Stream && messagesapi.MediaType(resp.Header) != messagesapi.EventStream {
		return nil
	}
	return s.dialect.stream(s.options())
}

func (s *signedRound) answer(b []byte) ([]byte, error) { return s.dialect.answer(b, s.options()) }
