package llmthinking

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// maxID bounds the conversation ids and backend names kept in the registry
// (both can come from request headers); a longer one is replaced by its hash.
const maxID = 128

// conversationID scopes a request's block lifecycle. Claude Code names its
// session in a header on every request and in metadata.user_id; subagents
// share the session but replay their own history, so each gets a scope of
// its own. Without any of these, all requests share the global scope "".
func conversationID(h http.Header, userID func() string) string {
	if s := h.Get("X-Claude-Code-Session-Id"); s != "" {
		if agent := h.Get("X-Claude-Code-Agent-Id"); agent != "" {
			s += "/agent/" + agent
		}
		return boundedID(s)
	}
	return boundedID(sessionFromUserID(userID()))
}

// sessionFromUserID finds the session in metadata.user_id, which Claude
// Code writes either as a JSON object in a string (2.1.x) or as
// "user_<hex>_account_<id>_session_<uuid>" (older versions).
func sessionFromUserID(uid string) string {
	if strings.HasPrefix(uid, "{") {
		return gjson.Get(uid, "session_id").String()
	}
	if _, session, ok := strings.Cut(uid, "_session_"); ok {
		return session
	}
	return ""
}

// boundedID returns id, or a hash of it when it is longer than maxID.
func boundedID(id string) string {
	if len(id) <= maxID {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:16])
}
