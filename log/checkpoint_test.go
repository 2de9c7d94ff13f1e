package log

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParseCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0\n42\n", 42, true},
		{"0\n42", 42, true},
		{"0\n0\n", 0, true},
		{"0\n9223372036854775807\n", 1<<63 - 1, true},
		{"", 0, false},
		{"\n", 0, false},
		{"0\n", 0, false},
		{"0", 0, false},
		{"1\n42\n", 0, false},
		{"00\n42\n", 0, false},
		{"0\n\n", 0, false},
		{"0\n-1\n", 0, false},
		{"0\n+1\n", 0, false},
		{"0\n 42\n", 0, false},
		{"0\n42 \n", 0, false},
		{"0\n4x2\n", 0, false},
		{"0\n9223372036854775808\n", 0, false},
		{"0\n99999999999999999999999\n", 0, false},
		{"0\n42\n\n", 0, false},
		{"0\n42\n43\n", 0, false},
		{"0\r\n42\r\n", 0, false},
		{"\x00\x00\x00\x00", 0, false},
	} {
		got, err := parseCheckpoint([]byte(tc.in))
		if tc.ok && (err != nil || got != tc.want) {
			t.Errorf("parseCheckpoint(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
		if !tc.ok && !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("parseCheckpoint(%q) = %d, %v; want ErrBadCheckpoint", tc.in, got, err)
		}
	}
}

func TestCheckpointOnOpen(t *testing.T) {
	build := func(t *testing.T) string {
		dir := t.TempDir()
		l := stOpen(t, dir, Options{})
		stAppendLeader(t, l, 3, 2, 1, 1) // LEO 6
		stClose(t, l)
		return dir
	}
	cp := func(dir string) string { return filepath.Join(dir, checkpointFileName) }

	t.Run("missing means HW 0", func(t *testing.T) {
		dir := build(t)
		os.Remove(cp(dir))
		if l := stOpen(t, dir, Options{}); l.HighWatermark() != 0 || l.EndOffset() != 6 {
			t.Errorf("HW, LEO = %d, %d; want 0, 6", l.HighWatermark(), l.EndOffset())
		}
	})
	t.Run("written by Close", func(t *testing.T) {
		dir := build(t)
		if l := stOpen(t, dir, Options{}); l.HighWatermark() != 6 {
			t.Errorf("HW = %d, want 6", l.HighWatermark())
		}
	})
	t.Run("above the recovered LEO is clamped", func(t *testing.T) {
		dir := build(t)
		stWriteFile(t, cp(dir), []byte("0\n1000\n"))
		if l := stOpen(t, dir, Options{}); l.HighWatermark() != 6 {
			t.Errorf("HW = %d, want 6 (clamped to LEO)", l.HighWatermark())
		}
	})
	t.Run("above a torn tail is clamped", func(t *testing.T) {
		dir := build(t)
		stUnflush(t, dir) // a crash tears only what was not flushed
		seg := stReadFile(t, stSeg(dir, 0, segmentSuffix))
		stWriteFile(t, stSeg(dir, 0, segmentSuffix), seg[:len(seg)-1])
		if l := stOpen(t, dir, Options{}); l.HighWatermark() != 4 || l.EndOffset() != 4 {
			t.Errorf("HW, LEO = %d, %d; want 4, 4", l.HighWatermark(), l.EndOffset())
		}
	})
	for _, bad := range []string{"", "garbage", "0\n", "7\n3\n", "0\n-3\n", "0\n3\n3\n"} {
		t.Run("bad "+bad, func(t *testing.T) {
			dir := build(t)
			stWriteFile(t, cp(dir), []byte(bad))
			l, err := Open(dir, Options{})
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Errorf("Open = %v, want ErrBadCheckpoint", err)
			}
			if l != nil {
				t.Error("Open returned a log with its error")
			}
		})
	}
	t.Run("CheckpointHighWatermark writes atomically", func(t *testing.T) {
		dir := t.TempDir()
		l := stOpen(t, dir, Options{})
		stAppendLeader(t, l, 1, 3, 1, 1)
		if err := l.CheckpointHighWatermark(); err != nil {
			t.Fatal(err)
		}
		if got := string(stReadFile(t, cp(dir))); got != "0\n3\n" {
			t.Errorf("checkpoint = %q", got)
		}
		if _, err := os.Stat(cp(dir) + checkpointTempSuffix); !os.IsNotExist(err) {
			t.Errorf("temporary file left behind: %v", err)
		}
	})
}
