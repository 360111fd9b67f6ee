package command

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
)

// forget has the running Caddy forget what its registries learned of
// model (every model when "") as backend serves it, and says how much it
// forgot.
func forget(out io.Writer, a admin, req adminapi.Forget) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	answer, err := a.post(adminapi.ForgetPath, body)
	if err != nil {
		return err
	}
	var resp adminapi.Forgotten
	if err := json.Unmarshal(answer, &resp); err != nil {
		return fmt.Errorf("decoding the answer of %s: %w", adminapi.ForgetPath, err)
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
