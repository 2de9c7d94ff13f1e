package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parseDir parses every Go file of the package directory, tests included.
func parseDir(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	return fset, files
}

// TestImportsNoKaenlogPackage: wire is the bottom of kaenlog's import
// graph (issue 8: "wire imports no other kaenlog package"), so every other
// package can depend on it. Only the external examples import wire itself.
func TestImportsNoKaenlogPackage(t *testing.T) {
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(mod), "\n")
	module := strings.TrimSpace(strings.TrimPrefix(first, "module"))
	if module == "" {
		t.Fatal("cannot read the module path from go.mod")
	}
	self := module + "/wire"
	_, files := parseDir(t)
	for name, f := range files {
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if path == self && strings.HasSuffix(name, "_test.go") && f.Name.Name == "wire_test" {
				continue
			}
			if path == module || strings.HasPrefix(path, module+"/") {
				t.Errorf("%s imports %s: package wire must not depend on another kaenlog package", name, path)
			}
		}
	}
}

// TestEveryExportedIdentifierIsDocumented: every exported type, function,
// method, constant, variable and struct field of the package (not its
// tests) has a doc comment (or, for a constant or field in a group, a
// line comment).
func TestEveryExportedIdentifierIsDocumented(t *testing.T) {
	fset, files := parseDir(t)
	missing := func(pos token.Pos, what string) {
		t.Errorf("%s: %s has no doc comment", fset.Position(pos), what)
	}
	for name, f := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() {
					continue
				}
				if decl.Recv != nil && !exportedReceiver(decl.Recv) {
					continue
				}
				if decl.Doc == nil {
					missing(decl.Pos(), decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						if spec.Doc == nil && decl.Doc == nil {
							missing(spec.Pos(), spec.Name.Name)
						}
						checkFields(spec, missing)
					case *ast.ValueSpec:
						for _, id := range spec.Names {
							documented := spec.Doc != nil || spec.Comment != nil || (decl.Doc != nil && !decl.Lparen.IsValid())
							if id.IsExported() && !documented {
								missing(id.Pos(), id.Name)
							}
						}
					}
				}
			}
		}
	}
}

func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// checkFields wants every exported field of an exported struct documented,
// and every method of an exported interface.
func checkFields(spec *ast.TypeSpec, missing func(token.Pos, string)) {
	var fields *ast.FieldList
	switch typ := spec.Type.(type) {
	case *ast.StructType:
		fields = typ.Fields
	case *ast.InterfaceType:
		fields = typ.Methods
	default:
		return
	}
	for _, field := range fields.List {
		if field.Doc != nil || field.Comment != nil {
			continue
		}
		if len(field.Names) == 0 { // embedded
			if id, ok := field.Type.(*ast.Ident); ok && id.IsExported() {
				missing(field.Pos(), spec.Name.Name+"."+id.Name)
			}
			continue
		}
		for _, id := range field.Names {
			if id.IsExported() {
				missing(id.Pos(), spec.Name.Name+"."+id.Name)
			}
		}
	}
}
