package fixedpoint

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExportsHaveCallers keeps fixedpoint sized to its users (issue 42):
// every exported function and method of fixedpoint and of its leaf
// fixedpoint/root (methods of their exported types and interfaces) must
// have a production caller, that is a use in another package's non-test
// code, or a use in a declaration of the two that itself has a production
// caller. Tests and Examples are not callers: an export that only they
// use is to be deleted, not kept for later.
//
// The module's non-test files (those go/build selects for this platform)
// are parsed and type-checked with go/types (other packages from their
// export data, which `go list -export` provides), so a method call is
// matched to its receiver's type, not to its name. A method that
// implements an interface is live with the interface's method; String
// and Error are live with their type (fmt and errors call them). A call
// through an interface declared in another package is otherwise not seen.
func TestExportsHaveCallers(t *testing.T) {
	t.Parallel()
	m, err := loadModule(filepath.Join(".."), "herd")
	if err != nil {
		t.Fatal(err)
	}
	if len(m.typeErrs) > 0 {
		t.Errorf("the module does not type-check (%d errors; the first: %v): the callers below may be incomplete", len(m.typeErrs), m.typeErrs[0])
	}
	var engine []*checked
	for _, p := range []string{"herd/fixedpoint", "herd/fixedpoint/root"} {
		c := m.pkgs[p]
		if c == nil {
			t.Fatalf("%s not loaded", p)
		}
		engine = append(engine, c)
	}
	for _, name := range m.unused(engine) {
		t.Errorf("%s has no production caller (another package's non-test code, or a fixedpoint declaration that has one): delete it, with its tests and Examples", name)
	}
}

// module is the module's production code, type-checked.
type module struct {
	root, path string
	fset       *token.FileSet
	std        types.Importer
	pkgs       map[string]*checked
	typeErrs   []error
}

// checked is one package: its syntax (non-test files) and type information.
type checked struct {
	files []*ast.File
	types *types.Package
	info  *types.Info
}

// loadModule type-checks every package of the module at root (module
// path modPath), skipping testdata and hidden directories.
func loadModule(root, modPath string) (*module, error) {
	m := &module{root: root, path: modPath, fset: token.NewFileSet(), pkgs: map[string]*checked{}}
	exports, err := exportData(root)
	if err != nil {
		return nil, err
	}
	m.std = importer.ForCompiler(m.fset, "gc", func(p string) (io.ReadCloser, error) {
		file, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(file)
	})
	var dirs []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") && !slices.Contains(dirs, filepath.Dir(p)) {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil, err
		}
		pkgPath := path.Join(modPath, filepath.ToSlash(rel))
		if _, err := m.load(pkgPath); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// exportData maps the import path of every package outside the module
// that the module's packages depend on to its export data file (`go list
// -export`, which compiles what the build cache lacks; the module's own
// packages are checked from source and not compiled here).
func exportData(root string) (map[string]string, error) {
	goList := func(args ...string) ([]string, error) {
		cmd := exec.Command("go", append([]string{"list", "-e"}, args...)...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
		}
		return strings.Fields(string(out)), nil
	}
	deps, err := goList("-deps", "-f", "{{if not (and .Module .Module.Main)}}{{.ImportPath}}{{end}}", "./...")
	if err != nil {
		return nil, err
	}
	out, err := goList(append([]string{"-export", "-f", "{{.ImportPath}}={{.Export}}"}, deps...)...)
	if err != nil {
		return nil, err
	}
	exports := map[string]string{}
	for _, line := range out {
		if p, file, ok := strings.Cut(line, "="); ok && file != "" {
			exports[p] = file
		}
	}
	return exports, nil
}

// Import makes module an importer: the module's packages from their
// checked source, others from their export data.
func (m *module) Import(p string) (*types.Package, error) {
	if p != m.path && !strings.HasPrefix(p, m.path+"/") {
		return m.std.Import(p)
	}
	c, err := m.load(p)
	if err != nil {
		return nil, err
	}
	return c.types, nil
}

// load parses and type-checks the module package p once.
func (m *module) load(p string) (*checked, error) {
	if c, ok := m.pkgs[p]; ok {
		return c, nil
	}
	dir := filepath.Join(m.root, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, m.path), "/")))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	c := &checked{info: &types.Info{
		Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{},
	}}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(m.fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		c.files = append(c.files, f)
	}
	m.pkgs[p] = c
	// Type errors are collected, not fatal: the checker goes on and
	// records what it can, and the test reports them.
	conf := types.Config{Importer: m, Error: func(err error) { m.typeErrs = append(m.typeErrs, err) }}
	c.types, _ = conf.Check(p, m.fset, c.files, c.info)
	return c, nil
}

// unused lists the exported functions and methods of the packages of
// engine that have no production caller outside engine, as "pkg.Func"
// and "pkg.Type.Method". Uses inside engine's packages are edges from
// the declaration they occur in: they make a use live only when that
// declaration is.
func (m *module) unused(engine []*checked) []string {
	in := map[*types.Package]bool{}
	for _, c := range engine {
		in[c.types] = true
	}
	origin := func(o types.Object) types.Object {
		switch o := o.(type) {
		case *types.Func:
			return o.Origin()
		case *types.Var:
			return o.Origin()
		}
		return o
	}
	live := map[types.Object]bool{}
	var queue []types.Object
	mark := func(o types.Object) {
		if o = origin(o); in[o.Pkg()] && !live[o] {
			live[o] = true
			queue = append(queue, o)
		}
	}
	// Roots: engine's objects used by the other packages.
	for _, c := range m.pkgs {
		if !in[c.types] {
			for _, o := range c.info.Uses {
				mark(o)
			}
		}
	}
	// Edges: what each top-level declaration of engine uses.
	uses := map[types.Object][]types.Object{}
	var methods []*types.Func // methods of engine's named types and interfaces
	for _, pkg := range engine {
		edges := func(owner types.Object, n ast.Node) {
			ast.Inspect(n, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if o := pkg.info.Uses[id]; o != nil {
						uses[owner] = append(uses[owner], o)
					}
				}
				return true
			})
		}
		for _, f := range pkg.files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					o := pkg.info.Defs[d.Name]
					edges(o, d)
					if d.Recv == nil && d.Name.Name == "init" {
						mark(o)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							edges(pkg.info.Defs[s.Name], s)
						case *ast.ValueSpec:
							for _, n := range s.Names {
								edges(pkg.info.Defs[n], s)
							}
						}
					}
				}
			}
		}
		scope := pkg.types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok {
				continue
			}
			for i := range named.NumMethods() {
				methods = append(methods, named.Method(i))
			}
			if it, ok := named.Underlying().(*types.Interface); ok {
				for i := range it.NumExplicitMethods() {
					methods = append(methods, it.ExplicitMethod(i))
				}
			}
		}
	}
	// recvNamed is a method's receiver type, without the pointer.
	recvNamed := func(fn *types.Func) *types.Named {
		recv := fn.Signature().Recv().Type()
		if p, ok := recv.(*types.Pointer); ok {
			recv = p.Elem()
		}
		named, _ := recv.(*types.Named)
		return named
	}
	// implements reports whether method fn of a concrete type implements
	// the interface method im.
	implements := func(fn, im *types.Func) bool {
		if fn.Name() != im.Name() {
			return false
		}
		recv := fn.Signature().Recv().Type()
		iface, ok := im.Signature().Recv().Type().Underlying().(*types.Interface)
		return ok && !types.IsInterface(recv) && types.Implements(recv, iface)
	}
	// implicit reports whether fn is String() string or Error() string.
	implicit := func(fn *types.Func) bool {
		s := fn.Signature()
		return (fn.Name() == "String" || fn.Name() == "Error") && s.Params().Len() == 0 &&
			s.Results().Len() == 1 && types.Identical(s.Results().At(0).Type(), types.Typ[types.String])
	}
	for {
		for len(queue) > 0 {
			o := queue[0]
			queue = queue[1:]
			for _, u := range uses[o] {
				mark(u)
			}
		}
		// Methods called without a syntactic use: through a live
		// interface method of engine, or by fmt and errors.
		for _, fn := range methods {
			if live[fn] {
				continue
			}
			if named := recvNamed(fn); named != nil && implicit(fn) && live[named.Obj()] {
				mark(fn)
				continue
			}
			for o := range live {
				if im, ok := o.(*types.Func); ok && im.Signature().Recv() != nil && implements(fn, im) {
					mark(fn)
					break
				}
			}
		}
		if len(queue) == 0 {
			break
		}
	}
	var out []string
	for _, pkg := range engine {
		scope := pkg.types.Scope()
		for _, name := range scope.Names() {
			if fn, ok := scope.Lookup(name).(*types.Func); ok && fn.Exported() && !live[fn] {
				out = append(out, pkg.types.Name()+"."+name)
			}
		}
	}
	for _, fn := range methods {
		named := recvNamed(fn)
		if named == nil || !named.Obj().Exported() || !fn.Exported() || live[fn] {
			continue
		}
		out = append(out, named.Obj().Pkg().Name()+"."+named.Obj().Name()+"."+fn.Name())
	}
	return out
}
