package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/header"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonscan"
	"github.com/caddy-llm-thinking/caddy-llm-thinking/internal/jsonstr"
)

// MaxID bounds the conversation ids and backend names kept in the registry
// (both can come from request headers); BoundedID replaces a longer one by
// its hash.
const MaxID = 128

// Conversation scopes a request's block lifecycle. Claude Code names its
// session in a header on every request and in metadata.user_id; subagents
// share the session but replay their own history, so each gets a scope of
// its own. Without any of these, all requests share the global scope "".
// userID is called only when the headers do not name the session.
//
// A session id is a secret of its client's (whoever has it can be taken
// for the session): the scope is its hash, whatever its length, and that is
// all the registry stores and the logs show.
func Conversation(h http.Header, userID func() string) string {
	return conversationOf(headerConversation(h), userID)
}

// conversationOf is Conversation for a request whose headers name the
// conversation named ("" when they name none).
func conversationOf(named string, userID func() string) string {
	if named != "" {
		return named
	}
	return hashedID(sessionFromUserID(userID()))
}

// headerConversation is the conversation the headers name, or "".
func headerConversation(h http.Header) string {
	s := header.First(h, "X-Claude-Code-Session-Id")
	if s == "" {
		return ""
	}
	if agent := header.First(h, "X-Claude-Code-Agent-Id"); agent != "" {
		s += "/agent/" + agent
	}
	return hashedID(s)
}

// hashedID returns the hash of id, as BoundedID writes it, or "" for "".
func hashedID(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// sessionFromUserID finds the session in metadata.user_id, which Claude
// Code writes either as a JSON object in a string (2.1.x) or as
// "user_<hex>_account_<id>_session_<uuid>" (older versions).
func sessionFromUserID(uid string) string {
	if strings.HasPrefix(uid, "{") {
		return jsonSessionID([]byte(uid))
	}
	if _, session, ok := strings.Cut(uid, "_session_"); ok {
		return session
	}
	return ""
}

// jsonSessionID returns the string member session_id of the JSON object
// obj, or "" when there is none. Like JSON.parse, the last of duplicate keys
// wins.
func jsonSessionID(obj []byte) string {
	var session []byte
	var buf [32]byte
	it := jsonscan.Members(obj, 0)
	for key, value, ok := it.Item(); ok; key, value, ok = it.Item() {
		if string(jsonscan.Name(key, &buf)) != "session_id" {
			continue
		}
		session = nil
		if v, ok := jsonstr.Append(nil, value); ok {
			session = v
		}
	}
	if it.Err() != nil {
		return ""
	}
	return string(session)
}

// BoundedID returns id, or a hash of it when it is longer than MaxID: for
// backend names and model names, which are no secret.
func BoundedID(id string) string {
	if len(id) <= MaxID {
		return id
	}
	return hashedID(id)
}
