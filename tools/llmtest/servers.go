package llmtest

import "net/http"

// ServerRefusal is a refusal that a server behind an Anthropic-compatible
// endpoint answers in an envelope of its own, with a status of its own.
type ServerRefusal int

const (
	// FastAPIRefusesAdaptive: a server that validates with FastAPI and
	// pydantic and knows only enabled and disabled thinking (omlx, an MLX
	// server) answers a request for adaptive thinking 422, with FastAPI's
	// list of what is wrong:
	//	{"detail":[{"type":"literal_error","loc":["body","thinking","type"],
	//	  "msg":"Input should be 'enabled' or 'disabled'","input":"adaptive",
	//	  "ctx":{"expected":"'enabled' or 'disabled'"}}]}
	FastAPIRefusesAdaptive ServerRefusal = iota + 1
	// GLMAlwaysThinks: GLM-5.3 always thinks, and z.ai answers a request
	// that turns thinking off ({"type":"disabled"}) with a 400 of business
	// code 1210 (cc-switch #6737; the envelope of z.ai's error codes,
	// docs.z.ai/api-reference/api-code): "该模型始终思考，不支持关闭思考；
	// 请使用 low、high 或 max。" ("the model always thinks, turning it off is
	// not supported; use low, high or max").
	GLMAlwaysThinks
)

// msgGLMAlwaysThinks is GLM-5.3's refusal, verbatim.
const msgGLMAlwaysThinks = "该模型始终思考，不支持关闭思考；请使用 low、high 或 max。"

// RefuseAsServer makes u refuse requests for models as r says.
func (u *Upstream) RefuseAsServer(r ServerRefusal, models ...string) {
	putLocked(&u.mu, &u.serverRefusals, r, models...)
}

// serverRefusal answers req with the refusal u was told to make, and
// reports whether it did.
func (u *Upstream) serverRefusal(a answer, req *request) bool {
	u.mu.Lock()
	r := u.serverRefusals[req.model]
	u.mu.Unlock()
	switch {
	case r == FastAPIRefusesAdaptive && req.thinkingType == "adaptive":
		const msg = "Input should be 'enabled' or 'disabled'"
		a.writeJSON(http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{
			"type": "literal_error", "loc": []any{"body", "thinking", "type"}, "msg": msg, "input": "adaptive",
			"ctx": map[string]string{"expected": "'enabled' or 'disabled'"},
		}}}, msg)
		return true
	case r == GLMAlwaysThinks && req.thinkingType == "disabled":
		a.writeJSON(http.StatusBadRequest, map[string]any{"error": map[string]string{"code": "1210", "message": msgGLMAlwaysThinks}}, msgGLMAlwaysThinks)
		return true
	}
	return false
}
