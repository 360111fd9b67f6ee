package llmthinking

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var update = flag.Bool("update", false, "rewrite the golden JSON of the adapt tests")

// adapt turns a Caddyfile into indented JSON, as `caddy adapt` does.
func adapt(t *testing.T, src []byte) ([]byte, error) {
	t.Helper()
	adapter := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}
	out, _, err := adapter.Adapt(src, map[string]any{"filename": "Caddyfile"})
	if err != nil {
		return nil, err
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, out, "", "\t"); err != nil {
		t.Fatal(err)
	}
	return append(indented.Bytes(), '\n'), nil
}

// TestCaddyfileAdapt compares each testdata/caddyfile/*.caddyfile, and the
// shipped Caddyfile.example, with the JSON beside it. Run with -update to
// rewrite the JSON after a deliberate change, then review the diff.
func TestCaddyfileAdapt(t *testing.T) {
	inputs, err := filepath.Glob("testdata/caddyfile/*.caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, "Caddyfile.example")
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := adapt(t, src)
			if err != nil {
				t.Fatalf("adapt: %v", err)
			}
			golden := strings.TrimSuffix(in, ".caddyfile") + ".json"
			if in == "Caddyfile.example" {
				golden = "testdata/caddyfile/Caddyfile.example.json"
			}
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("adapted JSON differs from %s:\n%s", golden, got)
			}
		})
	}
}

func TestCaddyfileErrorsNameTheLine(t *testing.T) {
	tests := []struct {
		name string
		body string
		line int
		want string
	}{
		{"unknown subdirective", "llm_thinking {\n\t\tbackend a\n\t\tflavour b\n\t}", 5, `unrecognized llm_thinking subdirective "flavour"`},
		{"unknown mode", "llm_thinking {\n\t\tmode erase\n\t}", 4, `unknown mode "erase"`},
		{"max_blocks not a number", "llm_thinking {\n\t\tmax_blocks many\n\t}", 4, `max_blocks must be a positive integer, got "many"`},
		{"max_blocks zero", "llm_thinking {\n\t\tmax_blocks 0\n\t}", 4, `max_blocks must be a positive integer`},
		{"bad orphan_ttl", "llm_thinking {\n\t\torphan_ttl soon\n\t}", 4, `orphan_ttl must be a positive duration`},
		{"bad max_body_size", "llm_thinking {\n\t\tmax_body_size huge\n\t}", 4, `max_body_size must be a size such as 32MiB, got "huge"`},
		{"missing value", "llm_thinking {\n\t\tbackend\n\t}", 4, `wrong argument count`},
		{"two values", "llm_thinking {\n\t\tregistry a b\n\t}", 4, `registry takes one value, got another: "b"`},
		{"two inline backends", "llm_thinking a b", 3, `wrong argument count`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := ":8080 {\n\t\n\t" + tt.body + "\n\treverse_proxy localhost:9000\n}\n"
			_, err := adapt(t, []byte(src))
			if err == nil {
				t.Fatal("adapt accepted it")
			}
			at := fmt.Sprintf("at Caddyfile:%d", tt.line)
			if !strings.Contains(err.Error(), tt.want) || !strings.HasSuffix(err.Error(), at) {
				t.Fatalf("error = %v\nwant %q %s", err, tt.want, at)
			}
		})
	}
}
