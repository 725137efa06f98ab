// Command facts_imports_go prints what Go's own type checker says every file of a Go module uses from the module's
// other files: one JSON object, for bench/facts_imports_go.py to judge the index's file dependencies by.
//
//	facts_imports_go ROOT
//
// Every package of the module under ROOT (folders named testdata or starting with `_` or `.`, and nested modules,
// are not the module's, as `go build ./...` has it) is checked with its _test.go files: the package with its
// in-package tests, then its external `x_test` package, which imports that. Each identifier a file uses (go/types'
// Info.Uses: a name, the selected name of `pkg.Name`, `x.Field` and `x.Method`, a method value, a key of a struct
// literal) that denotes an object declared in another file of the module gives the edge file -> declaring file. A
// method or field reached through a value is the selection's object: the method's or field's own file, where it is
// promoted through an embedded type too; an interface's method is the interface's file.
//
// Printed beside: every file checked (its package, whether it is a test of the package or of its x_test package,
// whether it is generated, the module's packages it imports) and every package's files as `go build` compiles them
// (tests left out), the package graph's second truth.
//
// The standard library only (go/build, go/parser, go/types, go/importer's "source" importer), as
// bench/facts_calls_go.go: golang.org/x/tools cannot be had offline. Type errors are counted (on stderr and as
// `errors`, with the packages outside the module that could not be imported): the bench takes no truth from a
// module with any.
package main

import (
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
	"strconv"
	"strings"
)

// file is one .go file checked, as the bench needs it.
type file struct {
	Path      string   `json:"path"`    // relative to ROOT
	Package   string   `json:"package"` // its import path, with `_test` for an x_test package's file
	Kind      string   `json:"kind"`    // code, test (in-package _test.go) or xtest
	Generated bool     `json:"generated,omitempty"`
	Imports   []string `json:"imports"` // the module's packages it imports
}

// edge is one file's uses of another's declarations: how many, and the first few (`kind name` and line).
type edge struct {
	From  string   `json:"from"`
	To    string   `json:"to"`
	Uses  int      `json:"uses"`
	Names []string `json:"names"`
	Line  int      `json:"line"` // the first use's
	// uses by the kind of object: func, method, interface method, type, field, var, const
	Kinds map[string]int `json:"kinds"`

	seen map[string]bool
}

type output struct {
	Module   string              `json:"module"`
	Files    []*file             `json:"files"`
	Packages map[string][]string `json:"packages"` // import path -> the files `go build` compiles (no tests)
	Edges    []*edge             `json:"edges"`
	Errors   int                 `json:"errors"`
	// packages outside the module the source importer could not read: a dependency not to be had offline
	Unimported []string `json:"unimported"`
}

const namesKept = 5 // names listed per edge: enough to read why it is there

type loader struct {
	root    string
	module  string
	fset    *token.FileSet
	dirs    map[string]*build.Package // import path -> the module's package there
	checked map[string]*types.Package // import path -> the package without its tests, as importers see it
	testing map[string]*types.Package // while an x_test package is checked: the package it tests, with its tests
	std     types.ImporterFrom
	errors  int
	missing map[string]bool // import paths the source importer could not read
	files   []*file
	edges   map[[2]string]*edge
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)`)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: facts_imports_go ROOT")
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
	paths := make([]string, 0, len(l.dirs))
	for path := range l.dirs {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	out := output{Module: l.module, Packages: map[string][]string{}}
	for _, path := range paths {
		l.checkPackage(path)
		bp := l.dirs[path]
		for _, name := range bp.GoFiles {
			rel, _ := l.relative(filepath.Join(bp.Dir, name))
			out.Packages[path] = append(out.Packages[path], rel)
		}
	}
	out.Files = l.files
	for _, e := range l.edges {
		out.Edges = append(out.Edges, e)
	}
	sort.Slice(out.Edges, func(i, j int) bool {
		if out.Edges[i].From != out.Edges[j].From {
			return out.Edges[i].From < out.Edges[j].From
		}
		return out.Edges[i].To < out.Edges[j].To
	})
	out.Errors = l.errors
	out.Unimported = []string{}
	for path := range l.missing {
		out.Unimported = append(out.Unimported, path)
	}
	sort.Strings(out.Unimported)
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "%d packages, %d files, %d edges, %d type errors\n", len(paths), len(l.files), len(out.Edges), l.errors)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "facts_imports_go:", err)
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
		dirs:    map[string]*build.Package{},
		checked: map[string]*types.Package{},
		testing: map[string]*types.Package{},
		std:     importer.ForCompiler(fset, "source", nil).(types.ImporterFrom),
		edges:   map[[2]string]*edge{},
		missing: map[string]bool{},
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
		pkg, err := l.std.ImportFrom(path, dir, mode)
		if err != nil {
			l.missing[path] = true
		}
		return pkg, err
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
		// comments for ast.IsGenerated
		f, err := parser.ParseFile(l.fset, filename, source, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			l.errors++
			fmt.Fprintln(os.Stderr, err)
		}
		if f != nil {
			files = append(files, f)
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
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

// checkPackage checks a package with its in-package tests, then its x_test package, and reads their files' uses.
func (l *loader) checkPackage(path string) {
	bp := l.dirs[path]
	names := append(append([]string{}, bp.GoFiles...), bp.TestGoFiles...)
	tested, info, files := l.check(path, bp.Dir, names)
	l.read(path, info, files, func(name string) string {
		if strings.HasSuffix(name, "_test.go") {
			return "test"
		}
		return "code"
	})
	if len(bp.XTestGoFiles) > 0 {
		l.testing[path] = tested
		_, info, files = l.check(path+"_test", bp.Dir, bp.XTestGoFiles)
		delete(l.testing, path)
		l.read(path+"_test", info, files, func(string) string { return "xtest" })
	}
}

func (l *loader) read(pkg string, info *types.Info, files []*ast.File, kind func(string) string) {
	for _, f := range files {
		rel, _ := l.relative(l.fset.Position(f.Pos()).Filename)
		entry := &file{Path: rel, Package: pkg, Kind: kind(rel), Generated: ast.IsGenerated(f), Imports: []string{}}
		for _, spec := range f.Imports {
			imported, err := strconv.Unquote(spec.Path.Value)
			if _, ours := l.dirs[imported]; err == nil && ours {
				entry.Imports = append(entry.Imports, imported)
			}
		}
		l.files = append(l.files, entry)
	}
	// in source order, so that each edge's first use and names are the file's first
	idents := make([]*ast.Ident, 0, len(info.Uses))
	for ident := range info.Uses {
		idents = append(idents, ident)
	}
	sort.Slice(idents, func(i, j int) bool { return idents[i].Pos() < idents[j].Pos() })
	for _, ident := range idents {
		obj := info.Uses[ident]
		what := describe(obj)
		if what == "" || !obj.Pos().IsValid() {
			continue // a package's name, a label, the universe's `error`
		}
		to, inside := l.relative(l.fset.Position(obj.Pos()).Filename)
		at := l.fset.Position(ident.Pos())
		from, _ := l.relative(at.Filename)
		if !inside || to == from {
			continue
		}
		key := [2]string{from, to}
		e := l.edges[key]
		if e == nil {
			e = &edge{From: from, To: to, Line: at.Line, Kinds: map[string]int{}, seen: map[string]bool{}}
			l.edges[key] = e
		}
		e.Uses++
		e.Kinds[what]++
		name := what + " " + qualified(obj)
		if !e.seen[name] && len(e.Names) < namesKept {
			e.seen[name] = true
			e.Names = append(e.Names, name)
		}
	}
}

// describe is the kind of object a use denotes, or "" for one no file declares for another (a package's name
// is declared by the file's own import, a label in its function).
func describe(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		recv := o.Type().(*types.Signature).Recv()
		if recv == nil {
			return "func"
		}
		if types.IsInterface(recv.Type()) {
			return "interface method"
		}
		return "method"
	case *types.Var:
		if o.IsField() {
			return "field"
		}
		return "var"
	case *types.Const:
		return "const"
	case *types.TypeName:
		return "type"
	}
	return ""
}

// qualified is a method's or field's name with its type's (`Mux.Get`), where the type is named.
func qualified(obj types.Object) string {
	if fn, ok := obj.(*types.Func); ok {
		if recv := fn.Type().(*types.Signature).Recv(); recv != nil {
			t := recv.Type()
			if pointer, ok := t.(*types.Pointer); ok {
				t = pointer.Elem()
			}
			if named, ok := types.Unalias(t).(*types.Named); ok {
				return named.Obj().Name() + "." + obj.Name()
			}
		}
	}
	return obj.Name()
}

func (l *loader) relative(filename string) (string, bool) {
	rel, err := filepath.Rel(l.root, filename)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
