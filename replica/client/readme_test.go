package client_test

import (
	"os"
	"strings"
	"testing"
)

// The README's client snippet is the package's Example, word for word:
// the function between "README begin" and "README end" in
// example_test.go, which the Example runs against a real cluster.
func TestReadmeSnippetIsTheExample(t *testing.T) {
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
		if !strings.Contains(code, "func produceAndConsume") {
			continue
		}
		if strings.TrimSpace(code) != strings.TrimSpace(snippet) {
			t.Fatalf("the README's produceAndConsume differs from example_test.go's:\n%s", code)
		}
		return
	}
	t.Skip("the README has no client snippet yet")
}
