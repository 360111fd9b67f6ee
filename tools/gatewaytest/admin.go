package gatewaytest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/caddy-llm-thinking/caddy-llm-thinking/adminapi"
)

// Backends reads what each backend used and how often a request went on
// from it (the backends of GET /llm_thinking/stats), since the process
// started.
func (c *Caddy) Backends() (map[string]adminapi.BackendStats, error) {
	var got adminapi.Stats
	err := adminJSON(c.client, http.MethodGet, "http://"+c.admin+adminapi.StatsPath, &got)
	return got.Backends, err
}

// Holds lists the conversations that hold on a backend after a failover
// (GET /llm_thinking/holds).
func (c *Caddy) Holds() (adminapi.Holds, error) {
	var got adminapi.Holds
	err := adminJSON(c.client, http.MethodGet, "http://"+c.admin+adminapi.HoldsPath, &got)
	return got, err
}

// EndHolds ends the holds on backend, on every backend when "" (DELETE
// /llm_thinking/holds), as an operator does once the first backend answers
// again, and returns how many ended.
func (c *Caddy) EndHolds(backend string) (int, error) {
	u := "http://" + c.admin + adminapi.HoldsPath
	if backend != "" {
		u += "?backend=" + url.QueryEscape(backend)
	}
	var got adminapi.Ended
	err := adminJSON(c.client, http.MethodDelete, u, &got)
	return got.Ended, err
}

// adminJSON sends a request without a body to the admin API and decodes
// its answer, a 200, into out.
func adminJSON(client *http.Client, method, target string, out any) error {
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, req.URL.Path, resp.Status, body)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", method, req.URL.Path, err)
	}
	return nil
}
