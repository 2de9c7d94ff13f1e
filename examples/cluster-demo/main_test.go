package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunPrintsTheGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "testdata", "cluster-demo.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("output differs from the golden file:\n%s", out.String())
	}
}

func TestInvalidFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--min-isr", "0"},
		{"--min-isr", "4"},
		{"--min-isr", "x"},
		{"--now-ms", "-1"},
		{"--lag-ms", "10"},
		{"--session-ms", "2000"},
		{"--no-such-flag"},
		{"extra"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if out.Len() != 0 || !strings.Contains(errOut.String(), "Usage") {
			t.Errorf("%q: want usage on stderr and nothing on stdout; stdout %q stderr %q", args, out.String(), errOut.String())
		}
	}
}
