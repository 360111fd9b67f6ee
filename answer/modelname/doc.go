// Package modelname makes a Messages response name the model the client
// asked for, instead of the one the backend answered under.
//
// Claude Code replays the thinking of a history message only when the model
// recorded with it equals the model it asks for. A backend behind a gateway
// that maps names (claude-sonnet-* to glm-*) answers under its own name, so
// the client drops that backend's reasoning on every turn. Rewriting the
// model of the stream's message_start event, or of a JSON answer, keeps it.
//
// Only that one value changes; every other byte passes as it came, and a
// stream is held back only until its message_start event is complete. The
// package reports the name the backend used, so that mismatches can still
// be logged. It knows nothing of HTTP or Caddy.
package modelname
