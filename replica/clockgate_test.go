package replica_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// libraryPackages are the packages that must be driven by the clock they are
// handed. examples/ and tests may read the wall clock; these may not.
var libraryPackages = []string{"log", "log/vfs", "wire", "isr", "epoch", "replica", "replica/clock", "replica/controller", "replica/client", "replica/group"}

// wallClockFuncs are the package time functions that read the wall clock,
// sleep, or start a timer.
var wallClockFuncs = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true,
}

// wallClockUses reports every use of a wall-clock function of package time
// in src, whatever name the file imports "time" under.
func wallClockUses(fset *token.FileSet, filename string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	timeNames := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path != "time" {
			continue
		}
		name := "time"
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			return []string{fset.Position(imp.Pos()).String() + ": dot-import of time"}, nil
		}
		timeNames[name] = true
	}
	var uses []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && timeNames[id.Name] && wallClockFuncs[sel.Sel.Name] {
			uses = append(uses, fset.Position(sel.Pos()).String()+": time."+sel.Sel.Name)
		}
		return true
	})
	return uses, nil
}

// TestNoWallClockInLibrary is the clock gate: no non-test file of a library
// package reads the wall clock, sleeps, or starts a timer.
func TestNoWallClockInLibrary(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	files := 0
	for _, pkg := range libraryPackages {
		dir := filepath.Join("..", pkg)
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			uses, err := wallClockUses(fset, path, src)
			if err != nil {
				return err
			}
			found = append(found, uses...)
			return nil
		})
		if err != nil {
			t.Fatalf("sweeping %s: %v", dir, err)
		}
	}
	if files < len(libraryPackages) {
		t.Fatalf("swept only %d files: the gate is not looking where the code is", files)
	}
	sort.Strings(found)
	for _, u := range found {
		t.Errorf("wall clock in a library package: %s (take nowMs from the caller)", u)
	}
}

// TestClockGateCatchesWallClock proves the gate can fail: each snippet reads
// the clock in a different disguise and must be caught.
func TestClockGateCatchesWallClock(t *testing.T) {
	caught := []string{
		"package p\nimport \"time\"\nfunc f() int64 { return time.Now().UnixMilli() }\n",
		"package p\nimport clock \"time\"\nfunc f() { clock.Sleep(1) }\n",
		"package p\nimport \"time\"\nvar c = time.Tick\n",
		"package p\nimport . \"time\"\nfunc f() { _ = Now() }\n",
	}
	for _, src := range caught {
		uses, err := wallClockUses(token.NewFileSet(), "snippet.go", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if len(uses) == 0 {
			t.Errorf("gate missed the wall clock in:\n%s", src)
		}
	}
	clean := "package p\nimport \"time\"\nfunc f(nowMs int64) time.Duration { return time.Duration(nowMs) * time.Millisecond }\n"
	if uses, err := wallClockUses(token.NewFileSet(), "clean.go", []byte(clean)); err != nil || len(uses) != 0 {
		t.Errorf("gate flagged a clock-free file: %v %v", uses, err)
	}
}
