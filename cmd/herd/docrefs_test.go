package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdRef matches the name of a Markdown file in text, with any path before
// it.
var mdRef = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)

// generatedDocs are Markdown files herd writes, not files of the
// repository: a name of one is not a citation.
var generatedDocs = map[string]bool{"index.md": true}

// TestNoOutsideDocs fails if a source, script or document of the module
// names a document that is not in the repository (a specification or a
// style guide kept beside the checkout, or any path into the folder
// shared beside it): a reader of a clone has only what is in it, so the
// models are stated in the package docs and the published figures in
// compare/validation.md.
func TestNoOutsideDocs(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	shared := ".." + "/shared" // the folder beside the checkout
	have := map[string]bool{}  // base names of the module's Markdown files
	var files []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if name == ".git" || name == "testdata" || name == "figures" && filepath.Base(filepath.Dir(path)) == "herd" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".md") {
			have[name] = true
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".sh":
			files = append(files, path)
		case "":
			if filepath.Base(filepath.Dir(path)) == ".ci" {
				files = append(files, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !have["README.md"] || !have["validation.md"] || len(files) < 100 {
		t.Fatalf("walked %d files from %s, Markdown %v: not the module", len(files), root, have)
	}
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, shared) {
				t.Errorf("%s:%d names %s, outside the repository: %s", rel, i+1, shared, strings.TrimSpace(line))
			}
			for _, ref := range mdRef.FindAllString(line, -1) {
				base := filepath.Base(ref)
				if !have[base] && !generatedDocs[base] {
					t.Errorf("%s:%d names %s, which is not in the repository: %s", rel, i+1, ref, strings.TrimSpace(line))
				}
			}
		}
	}
}
