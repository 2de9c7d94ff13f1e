package replica_test

import (
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// examplesIn returns every Example in the test files of dir, with whether
// go/doc can make a whole program of it: what pkg.go.dev shows and runs.
// go/doc makes none of an Example that uses a declaration of another file
// (a test helper) or of the package under test unexported (an Example in
// package p, not p_test): exactly what a reader could not copy.
func examplesIn(t *testing.T, fset *token.FileSet, dir string) map[string]bool {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, path := range matches {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range doc.Examples(f) {
			out[path+": Example"+ex.Name] = ex.Play != nil
		}
	}
	return out
}

// TestEveryExampleRunsAsShownFromExportedAPI sweeps every package of the
// repository, nested modules too: each Example must be a whole program
// that uses only exported API, so that a reader can copy it from pkg.go.dev
// and run it as shown.
func TestEveryExampleRunsAsShownFromExportedAPI(t *testing.T) {
	fset := token.NewFileSet()
	all := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() {
			for k, v := range examplesIn(t, fset, path) {
				all[k] = v
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 40 {
		t.Fatalf("found only %d Examples: the sweep is not looking where they are", len(all))
	}
	var bad []string
	for name, ok := range all {
		if !ok {
			bad = append(bad, name)
		}
	}
	sort.Strings(bad)
	for _, name := range bad {
		t.Errorf("%s: not a whole program of exported API (it uses a test helper of another file, or unexported names)", name)
	}
}

// TestExampleSweepCatchesAHelperOfAnotherFile proves the sweep can fail: an
// Example that calls a helper declared in another file is not copyable.
func TestExampleSweepCatchesAHelperOfAnotherFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("helpers_test.go", "package p_test\n\nfunc startCluster() string { return \"\" }\n")
	write("example_test.go", "package p_test\n\nimport \"fmt\"\n\nfunc Example() {\n\tfmt.Println(startCluster())\n\t// Output:\n}\n\nfunc ExampleSelfContained() {\n\tfmt.Println(\"x\")\n\t// Output: x\n}\n")
	got := examplesIn(t, token.NewFileSet(), dir)
	if ok, found := got[filepath.Join(dir, "example_test.go")+": Example"]; !found || ok {
		t.Errorf("the Example calling another file's helper passed the sweep: %v", got)
	}
	if ok := got[filepath.Join(dir, "example_test.go")+": ExampleSelfContained"]; !ok {
		t.Errorf("the self-contained Example failed the sweep: %v", got)
	}
}
