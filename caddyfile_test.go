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

var update = flag.Bool("update", false, "rewrite the expected output of the adapt tests")

// separator divides the sections of a .caddytest file, as in Caddy's own
// adapt tests.
const separator = "\n----------\n"

// TestCaddyfileAdapt runs every testdata/adapt/*.caddytest file. A file
// holds a Caddyfile, then either the JSON it must adapt to or the adapt
// error ("adapt error: ..."), and, when the adapted config must be refused,
// a third section with the error every llm_thinking handler in it gets from
// Validate ("validate error: ..."). The JSON config goes through the same
// Validate, so the two paths cannot disagree. Run with -update to rewrite
// the expectations after a deliberate change, then review the diff.
func TestCaddyfileAdapt(t *testing.T) {
	files, err := filepath.Glob("testdata/adapt/*.caddytest")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no adapt tests found")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".caddytest"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src, _, _ := strings.Cut(string(raw), separator)
			got := adaptOutcome(t, src)
			if *update {
				if err := os.WriteFile(file, []byte(src+separator+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(raw[len(src)+len(separator):]); got != want {
				t.Errorf("%s: got\n%s\nwant\n%s", file, got, want)
			}
		})
	}
}

// TestCaddyfileExampleAdapts keeps the shipped example and its adapted JSON
// (shown in the README) in step.
func TestCaddyfileExampleAdapts(t *testing.T) {
	src, err := os.ReadFile("Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	got := adaptOutcome(t, string(src))
	golden := "testdata/adapt/Caddyfile.example.json"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Caddyfile.example adapts to\n%s\nnot to %s", got, golden)
	}
}

// adaptOutcome adapts src as `caddy adapt` does and describes the result:
// the indented JSON, or the adapt error, then any validation error.
func adaptOutcome(t *testing.T, src string) string {
	t.Helper()
	adapter := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}
	out, _, err := adapter.Adapt([]byte(src), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		return "adapt error: " + err.Error() + "\n"
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, out, "", "\t"); err != nil {
		t.Fatal(err)
	}
	result := indented.String() + "\n"
	if err := validateHandlers(t, out); err != nil {
		result += separator[1:] + "validate error: " + err.Error() + "\n"
	}
	return result
}

// validateHandlers decodes every llm_thinking handler of an adapted config
// strictly (no field the Caddyfile wrote may be unknown to the JSON config)
// and validates it as Caddy does, returning the first error.
func validateHandlers(t *testing.T, config []byte) error {
	t.Helper()
	var handlers []json.RawMessage
	findHandlers(t, config, &handlers)
	for _, raw := range handlers {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatal(err)
		}
		delete(obj, "handler") // Caddy's own field, read by the module loader
		fields, _ := json.Marshal(obj)
		var h Handler
		dec := json.NewDecoder(bytes.NewReader(fields))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			t.Fatalf("adapted handler %s does not decode: %v", raw, err)
		}
		if err := h.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// findHandlers collects the llm_thinking handlers anywhere in a config.
func findHandlers(t *testing.T, config []byte, found *[]json.RawMessage) {
	var v any
	if err := json.Unmarshal(config, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["handler"] == "llm_thinking" {
				raw, _ := json.Marshal(v)
				*found = append(*found, raw)
				return
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(v)
}

// TestValidateAgreesWithTheCaddyfile loads the same values through JSON and
// through the Caddyfile and expects the same verdict.
func TestValidateAgreesWithTheCaddyfile(t *testing.T) {
	tests := []struct {
		json      string
		caddyfile string
	}{
		{`{"backend":"a","max_blocks":0}`, "backend a\n\t\tmax_blocks 0"},
		{`{"backend":"a","max_blocks":-1}`, "backend a\n\t\tmax_blocks -1"},
		{`{"backend":"a","mode":"erase"}`, "backend a\n\t\tmode erase"},
		{`{"mode":"strip"}`, "mode strip"},
		{`{"backend":"a","persist_interval":-1000000000}`, "backend a\n\t\tpersist_interval -1s"},
		{`{"backend":"a","orphan_ttl":-60000000000}`, "backend a\n\t\torphan_ttl -1m"},
		{`{"backend":"a","memory_wait":-1000000000}`, "backend a\n\t\tmemory_wait -1s"},
	}
	for _, tt := range tests {
		var fromJSON Handler
		if err := json.Unmarshal([]byte(tt.json), &fromJSON); err != nil {
			t.Fatal(err)
		}
		src := fmt.Sprintf(":8080 {\n\tllm_thinking {\n\t\t%s\n\t}\n}\n", tt.caddyfile)
		adapter := caddyfile.Adapter{ServerType: httpcaddyfile.ServerType{}}
		out, _, err := adapter.Adapt([]byte(src), map[string]any{"filename": "Caddyfile"})
		if err != nil {
			t.Fatalf("%q: %v", tt.caddyfile, err)
		}
		viaCaddyfile := fmt.Sprint(validateHandlers(t, out))
		viaJSON := fmt.Sprint(validateHandlers(t, []byte(`{"handler":"llm_thinking",`+tt.json[1:])))
		if viaCaddyfile != viaJSON {
			t.Errorf("%s: JSON says %s, the Caddyfile says %s", tt.json, viaJSON, viaCaddyfile)
		}
	}
}
