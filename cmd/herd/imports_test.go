package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// importRule is what one package directory may import: the herd packages
// (besides itself) and whether it may use the command line's libraries
// (pflag, gonum/plot).
type importRule struct {
	herd []string
	cli  bool
}

// importRules are the module's import rules, one entry per package
// directory of the module: the chain is cmd → compare → {meanfield →
// fixedpoint, sim}, all of them speaking fleet's words (start states, the
// edge law; a leaf: it imports no herd package). sim's non-test code never imports meanfield or
// fixedpoint (a shared bug would be invisible to compare), only the leaf
// fixedpoint/root (herd's one bisection and Brent's method; it imports no
// herd package) and internal/pool (herd's one worker pool, a leaf too); cmd/internal's rendering packages import no herd package
// but the shared file writer; compare's leaf packages (sweep, atomicfile,
// progress: the sharded sweeps' contract, the one atomic file writer,
// progress reports) import no model package and nothing of cmd; only cmd
// imports pflag and gonum/plot; library code never imports math/rand (v1).
var importRules = map[string]importRule{
	"fixedpoint":            {herd: []string{"herd/fixedpoint/root"}},
	"fixedpoint/root":       {},
	"internal/pool":         {},
	"fleet":                 {},
	"meanfield":             {herd: []string{"herd/fixedpoint", "herd/fixedpoint/root", "herd/internal/pool", "herd/fleet"}},
	"sim":                   {herd: []string{"herd/fixedpoint/root", "herd/internal/pool", "herd/fleet"}},
	"compare":               {herd: []string{"herd/meanfield", "herd/fixedpoint", "herd/fixedpoint/root", "herd/sim", "herd/internal/pool", "herd/fleet"}},
	"compare/sweep":         {herd: []string{"herd/compare/atomicfile"}},
	"compare/atomicfile":    {},
	"compare/progress":      {},
	"cmd/internal/table":    {cli: true},
	"cmd/internal/plotting": {cli: true, herd: []string{"herd/compare/atomicfile"}},
	"cmd/herd": {cli: true, herd: []string{"herd/compare", "herd/meanfield", "herd/fixedpoint", "herd/sim",
		"herd/compare/sweep", "herd/compare/atomicfile", "herd/compare/progress", "herd/internal/pool", "herd/fleet",
		"herd/cmd/internal/table", "herd/cmd/internal/plotting"}},
}

func TestImportRules(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	found, err := packageDirs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range found {
		if _, ok := importRules[dir]; !ok {
			t.Errorf("package directory %s has no import rule: add it to importRules (a new or renamed package)", dir)
		}
	}
	for dir, rule := range importRules {
		if !slices.Contains(found, dir) {
			t.Errorf("package directory %s is missing (renamed or removed?): update importRules and the package docs", dir)
			continue
		}
		checkImports(t, filepath.Join(root, dir), rule)
	}
}

// packageDirs lists the module's directories holding Go files, relative
// to root, skipping testdata and hidden directories.
func packageDirs(root string) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	return dirs, err
}

// checkImports checks the non-test Go files directly in dir against rule.
func checkImports(t *testing.T, dir string, rule importRule) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		path := filepath.Join(dir, name)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			switch {
			case p == "math/rand":
				t.Errorf("%s imports math/rand (v1): use math/rand/v2 with an explicit seed", path)
			case !rule.cli && (strings.HasPrefix(p, "github.com/spf13/pflag") || strings.HasPrefix(p, "gonum.org/v1/plot")):
				t.Errorf("%s imports %s: only cmd may", path, p)
			case strings.HasPrefix(p, "herd/") && !slices.Contains(rule.herd, p):
				t.Errorf("%s imports %s: it may import only %v", path, p, rule.herd)
			}
		}
	}
}
