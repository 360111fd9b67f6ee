package llmthinking

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLayers holds the module to the map in docs/how-it-works.md: every
// package of the plugin is on it, and each imports only packages of a lower
// tier, or of its own folder at no higher tier; a package of the "test"
// tier is imported by tests only.
func TestLayers(t *testing.T) {
	const module = "github.com/caddy-llm-thinking/caddy-llm-thinking"
	tiers := mapTiers(t)
	imports := packageImports(t, module)
	for pkg, deps := range imports {
		tier, ok := tiers[pkg]
		if !ok {
			t.Errorf("package %s is not on the map in docs/how-it-works.md", pkg)
			continue
		}
		for _, dep := range deps {
			depTier, ok := tiers[dep]
			switch {
			case !ok:
				continue // reported as a package of its own
			case depTier == testTier:
				t.Errorf("%s imports %s, which only tests may import", pkg, dep)
			case tier == testTier:
			case depTier < tier:
			case depTier == tier && topFolder(dep) == topFolder(pkg):
			default:
				t.Errorf("%s (tier %d) imports %s (tier %d): imports point down the tiers", pkg, tier, dep, depTier)
			}
		}
	}
	for pkg := range tiers {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("the map names %s, which is no package of the module", pkg)
		}
	}
}

// testTier is the tier of packages only tests import.
const testTier = -1

// mapTiers reads the tier of each folder from the map's table.
func mapTiers(t *testing.T) map[string]int {
	t.Helper()
	doc, err := os.ReadFile("docs/how-it-works.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "## The map")
	if !ok {
		t.Fatal("docs/how-it-works.md has no section \"The map\"")
	}
	row := regexp.MustCompile("(?m)^\\| (\\d+|test) \\| ([^|]+) \\|")
	folder := regexp.MustCompile("`([^`]+)`")
	tiers := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(table, -1) {
		tier := testTier
		if m[1] != "test" {
			tier, _ = strconv.Atoi(m[1])
		}
		for _, f := range folder.FindAllStringSubmatch(m[2], -1) {
			tiers[strings.TrimSuffix(f[1], "/")] = tier
		}
	}
	if len(tiers) == 0 {
		t.Fatal("the map in docs/how-it-works.md has no rows")
	}
	return tiers
}

// packageImports lists, for each package folder of the module ("." for
// the root), the module's packages its non-test files import.
func packageImports(t *testing.T, module string) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "tools" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		deps := imports[pkg]
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if rest, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(deps, rest) {
				deps = append(deps, rest)
			}
		}
		imports[pkg] = deps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// topFolder is the first element of a package's folder.
func topFolder(pkg string) string {
	top, _, _ := strings.Cut(pkg, "/")
	return top
}
