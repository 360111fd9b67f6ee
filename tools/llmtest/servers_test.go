package llmtest

import (
	"net/http"
	"testing"
)

// TestServerRefusals: the refusals answered in a server's own envelope,
// byte for byte.
func TestServerRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		r        ServerRefusal
		model    string
		thinking string
		status   int
		body     string
	}{
		{"FastAPI refuses adaptive", FastAPIRefusesAdaptive, "qwen3-mlx", "adaptive", http.StatusUnprocessableEntity,
			`{"detail":[{"ctx":{"expected":"'enabled' or 'disabled'"},"input":"adaptive","loc":["body","thinking","type"],"msg":"Input should be 'enabled' or 'disabled'","type":"literal_error"}]}`},
		{"GLM-5.3 refuses to stop thinking", GLMAlwaysThinks, "glm-5.3", "disabled", http.StatusBadRequest,
			`{"error":{"code":"1210","message":"该模型始终思考，不支持关闭思考；请使用 low、high 或 max。"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t, "server", Lenient)
			u.RefuseAsServer(tc.r, tc.model)
			c := NewConversation(u.URL(), "s")
			c.Model, c.Thinking = tc.model, tc.thinking
			turn, err := c.Say("hi")
			if err != nil || turn.Status != tc.status || string(turn.Body) != tc.body {
				t.Fatalf("%v %d %s", err, turn.Status, turn.Body)
			}
			// Any other model, or thinking as it takes it, is answered.
			c = NewConversation(u.URL(), "s2")
			c.Model = tc.model
			must(t)(c.Say("hi"))
		})
	}
}
