package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunPrintsTheGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "testdata", "replica-demo.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"--rounds", "4", "--min-isr", "2", "--now-ms", "1700000000000"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("output differs from the golden file:\n%s", out.String())
	}
}

func TestInvalidFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"--rounds", "0"},
		{"--rounds", "x"},
		{"--min-isr", "3"},
		{"--min-isr", "0"},
		{"--now-ms", "-5"},
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

func TestDataDirKeepsTheBrokers(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	if code := run([]string{"--data", dir}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, p := range []string{"rounds/broker-1/orders-0", "rounds/broker-2/orders-0/leader-epoch-checkpoint"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Errorf("--data should keep %s: %v", p, err)
		}
	}
}
