package command

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
)

// forgetPath is the admin endpoint that forgets what was learned of a
// backend's models.
const forgetPath = "/llm_thinking/forget"

// forgetRequest is the body of POST /llm_thinking/forget.
type forgetRequest struct {
	Registry string `json:"registry,omitempty"`
	Backend  string `json:"backend"`
	Model    string `json:"model,omitempty"`
}

// forget has the running Caddy forget what its registries learned of
// model (every model when "") as backend serves it, and says how much it
// forgot.
func forget(out io.Writer, a admin, req forgetRequest) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	answer, err := a.post(forgetPath, body)
	if err != nil {
		return err
	}
	var resp struct {
		Forgotten map[string]int `json:"forgotten"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return fmt.Errorf("decoding the answer of %s: %w", forgetPath, err)
	}
	what := "every model of " + req.Backend
	if req.Model != "" {
		what = req.Model + " of " + req.Backend
	}
	if len(resp.Forgotten) == 0 {
		_, err := fmt.Fprintf(out, "no registry in use: nothing learned of %s\n", what)
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(resp.Forgotten)) {
		n := resp.Forgotten[name]
		models := "models"
		if n == 1 {
			models = "model"
		}
		if _, err := fmt.Fprintf(out, "registry %s: forgot what was learned of %s (%d %s)\n", name, what, n, models); err != nil {
			return err
		}
	}
	return nil
}
