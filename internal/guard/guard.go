// Package guard keeps a bug in llm_thinking's own work on a request (a
// panic in the handler, its observers or a transport) from breaking the
// request or the process. The panic is logged, once, as
// thinking.internal_error with its stack and where it happened, and the
// caller falls back to what it does without the module: the body as it
// came, the answer unread, an upstream error. http.ErrAbortHandler, which
// aborts a response on purpose, is never swallowed.
package guard

import (
	"net/http"

	"go.uber.org/zap"
)

// Event is the log event of a recovered panic.
const Event = "thinking.internal_error"

// Recover, deferred directly (defer guard.Recover(...)), recovers a panic
// of the function deferring it, logs it with where it happened and the
// backend the request went to, and calls fallback.
func Recover(logger *zap.Logger, where, backend string, fallback func()) {
	if v := recover(); v != nil {
		Recovered(v, logger, where, backend, fallback)
	}
}

// Recovered handles v, a panic that a deferred function recovered, as
// Recover does. It serves a path too hot to evaluate Recover's arguments
// on every call: the deferred function calls recover itself, and this only
// when it recovered something.
func Recovered(v any, logger *zap.Logger, where, backend string, fallback func()) {
	if v == http.ErrAbortHandler {
		panic(v)
	}
	logger.Error(Event, zap.Any("panic", v), zap.String("where", where), zap.String("backend", backend), zap.StackSkip("stack", 1))
	fallback()
}
