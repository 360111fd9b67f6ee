package gatewaytest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Unload replaces the running config with one that serves nothing, so that
// what the last one held goes away now: its registries write what they
// have left to storage and stop. A test calls it before the storage
// directory it gave Caddy is removed, since a registry that outlived the
// test would write into it while it is being removed.
func (c *Caddy) Unload() error {
	return c.post(fmt.Sprintf("{\n\tadmin %s\n\tpersist_config off\n\tauto_https off\n}\n", c.admin))
}

// post posts a Caddyfile to the admin API's /load.
func (c *Caddy) post(caddyfile string) error {
	resp, err := c.client.Post("http://"+c.admin+"/load", "text/caddyfile", strings.NewReader(caddyfile))
	if err != nil {
		return fmt.Errorf("POST /load: %w", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST /load: %s: %s", resp.Status, body)
	}
	return nil
}
