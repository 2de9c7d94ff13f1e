package client_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The README's client snippet is the package's Example, word for word:
// the function between "README begin" and "README end" in
// example_test.go, which the Example runs against a real cluster, after
// an import block that imports exactly the packages the function uses.
func TestReadmeSnippetIsTheExampleWithItsImports(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(src), "// README begin\n")
	snippet, _, ok2 := strings.Cut(rest, "\n// README end\n")
	if !ok1 || !ok2 {
		t.Fatal("example_test.go lost its README markers")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(readme), "```go\n")
	for _, b := range blocks[1:] {
		code, _, _ := strings.Cut(b, "```")
		imports, fn, ok := strings.Cut(code, "\nfunc produceAndConsume")
		if !ok {
			continue
		}
		if strings.TrimSpace("func produceAndConsume"+fn) != strings.TrimSpace(snippet) {
			t.Fatalf("the README's produceAndConsume differs from example_test.go's:\n%s", code)
		}
		f, err := parser.ParseFile(token.NewFileSet(), "README.md", "package main\n"+code, 0)
		if err != nil {
			t.Fatalf("the README's snippet does not parse: %v\n%s", err, imports)
		}
		var imported []string
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			imported = append(imported, path[strings.LastIndex(path, "/")+1:])
		}
		used := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil {
					used[id.Name] = true
				}
			}
			return true
		})
		var uses []string
		for name := range used {
			uses = append(uses, name)
		}
		slices.Sort(imported)
		slices.Sort(uses)
		if !slices.Equal(imported, uses) {
			t.Fatalf("the README's snippet imports %v and uses the packages %v", imported, uses)
		}
		return
	}
	t.Fatal("the README has no client snippet (a go block with func produceAndConsume)")
}
