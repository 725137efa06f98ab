// Command facts_calls_go prints what Go's own type checker says every call of a Go module calls: one JSON object a
// line, for bench/facts_calls_go.py to judge the index's call edges by.
//
//	facts_calls_go ROOT
//
// Every package of the module under ROOT (folders named testdata or starting with `_` or `.`, and nested modules,
// are not the module's, as `go build ./...` has it) is checked with its _test.go files: the package with its
// in-package tests, then its external `x_test` package, which imports that. For each call expression: the file
// (relative to ROOT), the line of the called name, the name as written (the selector's or the identifier), the
// receiver as written, and the callee: a function or method with its package path, its receiver's type name and
// the file and line declaring it (`outside` where that is not under ROOT: the standard library's); an interface's
// method, naming the interface, with every method of the module's types that implements it (Go decides that by
// method names and signatures); or a conversion, a builtin, or a call of a function value (a variable, field or
// parameter of func type, a closure), which name no declaration.
//
// The standard library only (go/build, go/parser, go/types, go/importer's "source" importer): golang.org/x/tools
// cannot be had offline. Type errors are counted on stderr, and the checker goes on past them.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

type declaration struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Receiver string `json:"receiver,omitempty"`
	Name     string `json:"name"`
}

type callee struct {
	// function, method, interface method; conversion, builtin, value, unknown name no declaration
	Kind     string `json:"kind"`
	Package  string `json:"package,omitempty"`
	Receiver string `json:"receiver,omitempty"` // a method's type, an interface method's interface
	Name     string `json:"name,omitempty"`
	File     string `json:"file,omitempty"` // relative to ROOT; empty when outside it
	Line     int    `json:"line,omitempty"`
	Outside  bool   `json:"outside,omitempty"`
	// an interface method's implementations among the module's types
	Implementations []declaration `json:"implementations,omitempty"`
}

type site struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Name     string `json:"name"`
	Receiver string `json:"receiver,omitempty"`
	Callee   callee `json:"callee"`

	iface *types.Interface // the interface of an interface method's call, until its implementations are found
}

type loader struct {
	root    string
	module  string
	fset    *token.FileSet
	sources map[string][]byte
	dirs    map[string]*build.Package // import path -> the module's package there
	checked map[string]*types.Package // import path -> the package without its tests, as importers see it
	testing map[string]*types.Package // while an x_test package is checked: the package it tests, with its tests
	std     types.ImporterFrom
	errors  int
	types   map[token.Pos]*types.TypeName // the module's named types (tests' too), by declaration
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)`)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: facts_calls_go ROOT")
		os.Exit(2)
	}
	root, err := filepath.Abs(os.Args[1])
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		fail(err)
	}
	l, err := newLoader(root)
	if err != nil {
		fail(err)
	}
	var sites []*site
	paths := make([]string, 0, len(l.dirs))
	for path := range l.dirs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		sites = append(sites, l.packageSites(path)...)
	}
	type method struct {
		iface *types.Interface
		name  string
	}
	implementations := map[method][]declaration{}
	for _, s := range sites {
		if s.iface != nil {
			key := method{s.iface, s.Callee.Name}
			if _, ok := implementations[key]; !ok {
				implementations[key] = l.implementations(s.iface, s.Callee.Name)
			}
			s.Callee.Implementations = implementations[key]
		}
	}
	sort.SliceStable(sites, func(i, j int) bool {
		if sites[i].File != sites[j].File {
			return sites[i].File < sites[j].File
		}
		return sites[i].Line < sites[j].Line
	})
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	for _, s := range sites {
		if err := encoder.Encode(s); err != nil {
			fail(err)
		}
	}
	if err := out.Flush(); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "%d packages, %d call sites, %d type errors\n", len(paths), len(sites), l.errors)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "facts_calls_go:", err)
	os.Exit(1)
}

func newLoader(root string) (*loader, error) {
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	found := moduleLine.FindSubmatch(mod)
	if found == nil {
		return nil, errors.New("go.mod names no module")
	}
	// cgo's files would need the cgo tool run on them; without it the standard library's pure Go files are read
	build.Default.CgoEnabled = false
	fset := token.NewFileSet()
	l := &loader{
		root:    root,
		module:  string(found[1]),
		fset:    fset,
		sources: map[string][]byte{},
		dirs:    map[string]*build.Package{},
		checked: map[string]*types.Package{},
		testing: map[string]*types.Package{},
		std:     importer.ForCompiler(fset, "source", nil).(types.ImporterFrom),
		types:   map[token.Pos]*types.TypeName{},
	}
	err = filepath.WalkDir(root, func(dir string, entry fs.DirEntry, err error) error {
		if err != nil || !entry.IsDir() {
			return err
		}
		name := entry.Name()
		if dir != root {
			if name == "testdata" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := build.Default.ImportDir(dir, 0)
		if err != nil {
			var none *build.NoGoError
			if !errors.As(err, &none) {
				fmt.Fprintf(os.Stderr, "skipped %s: %v\n", dir, err)
			}
			return nil
		}
		rel, _ := filepath.Rel(root, dir)
		path := l.module
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
		l.dirs[path] = bp
		return nil
	})
	return l, err
}

func (l *loader) Import(path string) (*types.Package, error) {
	return l.ImportFrom(path, l.root, 0)
}

func (l *loader) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if pkg, ok := l.testing[path]; ok {
		return pkg, nil
	}
	if pkg, ok := l.checked[path]; ok {
		return pkg, nil
	}
	bp, ok := l.dirs[path]
	if !ok {
		return l.std.ImportFrom(path, dir, mode)
	}
	pkg, _, _ := l.check(path, bp.Dir, bp.GoFiles)
	l.checked[path] = pkg
	return pkg, nil
}

// check type-checks the files as the package of that import path.
func (l *loader) check(path, dir string, names []string) (*types.Package, *types.Info, []*ast.File) {
	var files []*ast.File
	for _, name := range names {
		filename := filepath.Join(dir, name)
		source, err := os.ReadFile(filename)
		if err != nil {
			fail(err)
		}
		file, err := parser.ParseFile(l.fset, filename, source, parser.SkipObjectResolution)
		if err != nil {
			l.errors++
			fmt.Fprintln(os.Stderr, err)
		}
		if file != nil {
			l.sources[filename] = source
			files = append(files, file)
		}
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	config := types.Config{
		Importer: l,
		Error: func(err error) {
			l.errors++
			if l.errors <= 20 {
				fmt.Fprintln(os.Stderr, err)
			}
		},
	}
	pkg, _ := config.Check(path, l.fset, files, info)
	return pkg, info, files
}

// packageSites checks a package with its in-package tests, then its x_test package, and reads their calls.
func (l *loader) packageSites(path string) []*site {
	bp := l.dirs[path]
	var sites []*site
	names := append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...)
	tested, info, files := l.check(path, bp.Dir, names)
	sites = append(sites, l.calls(info, files)...)
	if len(bp.XTestGoFiles) > 0 {
		l.testing[path] = tested
		_, info, files = l.check(path+"_test", bp.Dir, bp.XTestGoFiles)
		delete(l.testing, path)
		sites = append(sites, l.calls(info, files)...)
	}
	return sites
}

func (l *loader) calls(info *types.Info, files []*ast.File) []*site {
	for ident, obj := range info.Defs {
		if name, ok := obj.(*types.TypeName); ok && !name.IsAlias() {
			l.types[ident.Pos()] = name
		}
	}
	var sites []*site
	for _, file := range files {
		ast.Inspect(file, func(node ast.Node) bool {
			if call, ok := node.(*ast.CallExpr); ok {
				sites = append(sites, l.site(info, call))
			}
			return true
		})
	}
	return sites
}

func (l *loader) site(info *types.Info, call *ast.CallExpr) *site {
	fun := ast.Unparen(call.Fun)
	switch generic := fun.(type) { // `f[int](x)`: the function instantiated
	case *ast.IndexExpr:
		fun = ast.Unparen(generic.X)
	case *ast.IndexListExpr:
		fun = ast.Unparen(generic.X)
	}
	s := &site{}
	named := fun
	switch f := fun.(type) {
	case *ast.Ident:
		s.Name = f.Name
	case *ast.SelectorExpr:
		s.Name = f.Sel.Name
		s.Receiver = l.text(f.X)
		named = f.Sel
	}
	position := l.fset.Position(named.Pos())
	s.File, _ = l.relative(position.Filename)
	s.Line = position.Line
	s.Callee = l.callee(info, fun)
	if s.Callee.Kind == "interface method" {
		s.iface = l.interfaceOf(info, fun)
	}
	return s
}

func (l *loader) callee(info *types.Info, fun ast.Expr) callee {
	if value, ok := info.Types[fun]; ok {
		if value.IsType() {
			return callee{Kind: "conversion"}
		}
		if value.IsBuiltin() {
			return callee{Kind: "builtin"}
		}
	}
	var obj types.Object
	switch f := fun.(type) {
	case *ast.Ident:
		obj = info.Uses[f]
	case *ast.SelectorExpr:
		if selection := info.Selections[f]; selection != nil {
			obj = selection.Obj()
		} else {
			obj = info.Uses[f.Sel] // `pkg.F`
		}
	default:
		return callee{Kind: "value"} // a closure called where it is written, a function's result, `m[k]()`
	}
	switch o := obj.(type) {
	case *types.Func:
		return l.function(o.Origin())
	case *types.Var:
		return callee{Kind: "value"}
	}
	return callee{Kind: "unknown"}
}

func (l *loader) function(fn *types.Func) callee {
	c := callee{Kind: "function", Name: fn.Name()}
	if fn.Pkg() != nil {
		c.Package = fn.Pkg().Path()
	}
	if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
		c.Kind = "method"
		t := recv.Type()
		if pointer, ok := t.(*types.Pointer); ok {
			t = pointer.Elem()
		}
		if types.IsInterface(t) {
			c.Kind = "interface method"
		}
		if named, ok := types.Unalias(t).(*types.Named); ok {
			c.Receiver = named.Obj().Name()
		}
	}
	if !fn.Pos().IsValid() { // `err.Error()`: the universe's error
		c.Outside = true
		return c
	}
	position := l.fset.Position(fn.Pos())
	file, inside := l.relative(position.Filename)
	if !inside {
		c.Outside = true
		return c
	}
	c.File, c.Line = file, position.Line
	return c
}

// interfaceOf is the interface whose method a call names (a type parameter's constraint's too).
func (l *loader) interfaceOf(info *types.Info, fun ast.Expr) *types.Interface {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	selection := info.Selections[sel]
	if selection == nil {
		return nil
	}
	recv := selection.Obj().Type().(*types.Signature).Recv()
	if recv == nil {
		return nil
	}
	iface, _ := recv.Type().Underlying().(*types.Interface)
	return iface
}

// implementations are the methods of that name of the module's types implementing the interface: those a call of
// the interface's method may run. A type implements it when its pointer's method set has every method of the
// interface with the same signature (compared as text: the module's packages are checked more than once).
func (l *loader) implementations(iface *types.Interface, name string) []declaration {
	if iface == nil {
		return nil
	}
	seen := map[token.Pos]bool{}
	var out []declaration
	for _, typeName := range l.types {
		if _, ok := typeName.Type().Underlying().(*types.Interface); ok {
			continue
		}
		if _, ok := typeName.Type().Underlying().(*types.Pointer); ok {
			continue // a pointer type has no methods
		}
		value := types.NewPointer(typeName.Type())
		if !implements(value, iface) {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(value, false, typeName.Pkg(), name)
		method, ok := obj.(*types.Func)
		if !ok || seen[method.Pos()] {
			continue
		}
		seen[method.Pos()] = true
		found := l.function(method)
		if found.Kind != "method" || found.Outside {
			continue // a method of an embedded interface, or of an embedded type of the standard library's
		}
		out = append(out, declaration{File: found.File, Line: found.Line, Receiver: found.Receiver, Name: name})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

func implements(value types.Type, iface *types.Interface) bool {
	if iface.NumMethods() == 0 {
		return false // `any`: no call names a method of it
	}
	for i := 0; i < iface.NumMethods(); i++ {
		want := iface.Method(i)
		obj, _, _ := types.LookupFieldOrMethod(value, false, want.Pkg(), want.Name())
		have, ok := obj.(*types.Func)
		if !ok || signature(have) != signature(want) {
			return false
		}
	}
	return true
}

// signature is a method's parameter and result types, without their names (`Set(s string)` implements `Set(string)`).
func signature(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	qualified := func(pkg *types.Package) string { return pkg.Path() }
	var parts []string
	for _, tuple := range []*types.Tuple{sig.Params(), sig.Results()} {
		for i := 0; i < tuple.Len(); i++ {
			parts = append(parts, types.TypeString(tuple.At(i).Type(), qualified))
		}
		parts = append(parts, "->")
	}
	return fmt.Sprintf("%v %s", sig.Variadic(), strings.Join(parts, ", "))
}

func (l *loader) relative(filename string) (string, bool) {
	rel, err := filepath.Rel(l.root, filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func (l *loader) text(expr ast.Expr) string {
	file := l.fset.File(expr.Pos())
	source := l.sources[file.Name()]
	start, end := file.Offset(expr.Pos()), file.Offset(expr.End())
	if source == nil || end > len(source) {
		return ""
	}
	return string(source[start:end])
}
