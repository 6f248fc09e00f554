package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The import rules of STYLE.md: the chain is cmd → compare → {meanfield →
// fixedpoint, sim}. sim's non-test code never imports meanfield or
// fixedpoint (a shared bug would be invisible to compare); only cmd imports
// pflag and gonum/plot; library code never imports math/rand (v1).
func TestImportRules(t *testing.T) {
	t.Parallel()
	allowed := map[string][]string{ // herd packages each top-level package may import
		"fixedpoint": {},
		"meanfield":  {"herd/fixedpoint"},
		"sim":        {},
		"compare":    {"herd/meanfield", "herd/fixedpoint", "herd/sim"},
	}
	root := filepath.Join("..", "..")
	for pkg, ok := range allowed {
		dir := filepath.Join(root, pkg)
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, im := range f.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				switch {
				case p == "math/rand":
					t.Errorf("%s imports math/rand (v1): use math/rand/v2 with an explicit seed", path)
				case strings.HasPrefix(p, "github.com/spf13/pflag"), strings.HasPrefix(p, "gonum.org/v1/plot"):
					t.Errorf("%s imports %s: only cmd may", path, p)
				case strings.HasPrefix(p, "herd/") && !strings.HasPrefix(p, "herd/"+pkg):
					if !contains(ok, p) {
						t.Errorf("%s imports %s: %s may import only %v", path, p, pkg, ok)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
