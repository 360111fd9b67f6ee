package llmthinking

import (
	"net/http"

	"go.uber.org/zap"
)

// recoverBug, deferred around llm_thinking's own work on a request, turns a
// panic there (a bug) into a logged thinking.internal_error and calls
// onPanic to fall back, so that a bug never breaks the request. It must be
// deferred directly. http.ErrAbortHandler, which aborts a response on
// purpose, is never swallowed.
func recoverBug(logger *zap.Logger, backend string, onPanic func()) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	logger.Error("thinking.internal_error", zap.Any("panic", v), zap.String("backend", backend), zap.StackSkip("stack", 1))
	onPanic()
}
