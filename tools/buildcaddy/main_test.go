package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadResolvesLocalReplacements(t *testing.T) {
	dir := t.TempDir()
	recipe := filepath.Join(dir, "xcaddy.json")
	writeFile(t, recipe, `{"caddy_version":"v2.11.9",
		"plugins":[{"module_path":"example.com/plugin","version":"v0.0.0-00010101000000-000000000000"}],
		"replacements":[{"old":"example.com/plugin@v0.0.0-00010101000000-000000000000","new":"."},
		                {"old":"example.com/other","new":"example.com/fork@v1.2.3"}]}`)
	b, err := load(recipe)
	if err != nil {
		t.Fatal(err)
	}
	if b.CaddyVersion != "v2.11.9" || len(b.Plugins) != 1 || b.Plugins[0].PackagePath != "example.com/plugin" {
		t.Fatalf("recipe read as %+v", b)
	}
	if got := string(b.Replacements[0].New); got != dir {
		t.Errorf("local replacement = %q, want the recipe's directory %q", got, dir)
	}
	if got := string(b.Replacements[1].New); got != "example.com/fork@v1.2.3" {
		t.Errorf("module replacement changed to %q", got)
	}
}

func TestLoadRejectsUnknownFields(t *testing.T) {
	recipe := filepath.Join(t.TempDir(), "xcaddy.json")
	writeFile(t, recipe, `{"caddy_versoin":"v2.11.9"}`)
	if _, err := load(recipe); err == nil || !strings.Contains(err.Error(), "caddy_versoin") {
		t.Fatalf("err = %v, want the misspelt field named", err)
	}
}

// TestRecipe checks the recipe the README's build uses.
func TestRecipe(t *testing.T) {
	b, err := load("../../xcaddy.json")
	if err != nil {
		t.Fatal(err)
	}
	if b.CaddyVersion != "v2.11.9" || len(b.Plugins) != 1 || b.Plugins[0].PackagePath != "github.com/caddy-llm-thinking/caddy-llm-thinking" {
		t.Fatalf("xcaddy.json reads as %+v", b)
	}
	root, _ := filepath.Abs("../..")
	if got := string(b.Replacements[0].New); got != root {
		t.Fatalf("plugin replaced by %q, want the checkout %q", got, root)
	}
}
