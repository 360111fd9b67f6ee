package transporttest

import (
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
)

// A Loop is a conversation as an SDK-based client holds it: every turn
// sends the messages so far, the last answer as the SDK makes it, and a new
// user message.
type Loop struct {
	t      testing.TB
	c      anthropic.Client
	msgs   []anthropic.MessageParam
	answer *anthropic.Message
}

// NewLoop starts a conversation through c.
func NewLoop(t testing.TB, c anthropic.Client) *Loop {
	return &Loop{t: t, c: c}
}

// Turn sends the last answer back, if there is one, then a user message of
// blocks (text, tool results), streamed or not, and returns the answer
// (see Turn).
func (l *Loop) Turn(stream bool, blocks ...anthropic.ContentBlockParamUnion) anthropic.Message {
	l.t.Helper()
	if l.answer != nil {
		l.msgs = append(l.msgs, l.answer.ToParam())
	}
	l.msgs = append(l.msgs, anthropic.NewUserMessage(blocks...))
	m := Turn(l.t, l.c, stream, l.msgs)
	l.answer = &m
	return m
}
