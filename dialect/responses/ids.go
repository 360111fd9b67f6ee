package responses

import (
	"encoding/base64"
	"strings"
)

// encodedIDPrefix starts the tool_use id of a call whose call_id cannot be
// one (the Messages API takes letters, digits, '_' and '-'): the call_id
// follows, base64url, and goes back as it was.
const encodedIDPrefix = "toolu_rsp_"

// maxPlainID is the longest call_id that is its tool_use id as it is.
const maxPlainID = 64

// appendToolUseID appends the tool_use id of a call_id: itself when it can
// be one, else encoded; "toolu_rsp_" alone for none.
func appendToolUseID(dst, callID []byte) []byte {
	if plainID(callID) && !strings.HasPrefix(string(callID), encodedIDPrefix) {
		return append(dst, callID...)
	}
	return base64.RawURLEncoding.AppendEncode(append(dst, encodedIDPrefix...), callID)
}

// callIDOf returns the call_id a tool_use id stands for: the one it
// encodes, or the id itself (a call of another backend's keeps its id).
func callIDOf(id []byte) []byte {
	enc, ok := strings.CutPrefix(string(id), encodedIDPrefix)
	if !ok {
		return id
	}
	b, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return id
	}
	return b
}

// plainID reports whether id may be a tool_use id as it is: letters,
// digits, '_' and '-', at most maxPlainID of them.
func plainID(id []byte) bool {
	if len(id) == 0 || len(id) > maxPlainID {
		return false
	}
	for _, c := range id {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
