// Command buildcaddy builds Caddy with the llm_thinking plugin from the
// recipe in xcaddy.json: xcaddy's own Builder in JSON form (Caddy version,
// plugins, replacements). Relative replacement paths are resolved against
// the recipe's directory, so the plugin builds from this checkout.
//
//	go -C tools run ./buildcaddy [-recipe ../xcaddy.json] [-o ../caddy] [-symbols]
//
// With -symbols the binary keeps its symbol table, which xcaddy strips by
// default, so that profilers outside Go's own (scripts/instructions,
// valgrind) can name its functions.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/caddyserver/xcaddy"
)

func main() {
	recipe := flag.String("recipe", "../xcaddy.json", "the build recipe, xcaddy Builder JSON")
	output := flag.String("o", "../caddy", "where to write the binary")
	symbols := flag.Bool("symbols", false, "keep the symbol table (xcaddy strips it by default)")
	flag.Parse()

	builder, err := load(*recipe)
	if err != nil {
		log.Fatal(err)
	}
	if *symbols {
		if builder.BuildFlags != "" {
			// xcaddy strips nothing of its own then: the recipe's flags
			// say what is kept, and -symbols would change nothing.
			log.Fatalf("-symbols: %s sets build_flags (%q), which decide what the binary keeps", *recipe, builder.BuildFlags)
		}
		// xcaddy's own flags, less -ldflags "-w -s".
		builder.BuildFlags = "-trimpath -tags nobadger,nomysql,nopgx"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := builder.Build(ctx, *output); err != nil {
		log.Fatalf("building Caddy: %v", err)
	}
}

// load reads a recipe and makes its local replacement paths absolute, since
// xcaddy builds in a temporary directory.
func load(path string) (xcaddy.Builder, error) {
	var b xcaddy.Builder
	data, err := os.ReadFile(path)
	if err != nil {
		return b, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return b, fmt.Errorf("%s: %w", path, err)
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return b, err
	}
	for i, r := range b.Replacements {
		dir := string(r.New)
		if strings.HasPrefix(dir, ".") {
			b.Replacements[i].New = xcaddy.ReplacementPath(filepath.Join(base, dir))
		}
	}
	return b, nil
}
