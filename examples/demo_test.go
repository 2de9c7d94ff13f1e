package examples_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kaenlog/kaenlog/examples"
)

var update = flag.Bool("update", false, "rewrite testdata/replica-demo.golden from the demo's output")

const golden = "testdata/replica-demo.golden"

func runChapter(t *testing.T) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := examples.Run(&out, examples.ChapterConfig(t.TempDir())); err != nil {
		t.Fatalf("demo: %v\noutput so far:\n%s", err, out.String())
	}
	return out.Bytes()
}

// The whole run output, byte for byte, against the golden file: the
// chapter's text with the Rust names replaced by the Go API's.
func TestDemoMatchesGolden(t *testing.T) {
	got := runChapter(t)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Fatalf("demo output differs from %s (-want +got):\n%s", golden, diff)
	}
}

// The chapter's own gate: the demo prints the same bytes on every run.
func TestDemoIsDeterministic(t *testing.T) {
	first := runChapter(t)
	for run := 2; run <= 5; run++ {
		if got := runChapter(t); !bytes.Equal(got, first) {
			t.Fatalf("run %d printed different bytes from run 1", run)
		}
	}
}

// The golden file is the chapter's run output with only the Rust names
// replaced. When the chapter is reachable (a checkout beside shared/), derive
// it again from the chapter and compare, so the golden cannot drift from the
// text it claims to be.
func TestGoldenIsTheChaptersOutput(t *testing.T) {
	chapter, err := os.ReadFile(filepath.Join("..", "..", "shared", "seed", "000_c11f5f8ed86d319c.txt"))
	if err != nil {
		t.Skipf("the chapter is not beside this checkout: %v", err)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	got := goRenames(chapterOutput(string(chapter)))
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(got, "\n")); diff != "" {
		t.Fatalf("golden differs from the chapter's run output (-golden +chapter):\n%s", diff)
	}
}

// chapterOutput cuts the run-output blocks out of the chapter: each starts
// at a line beginning with "== " and ends at a blank line; the first block's
// table is followed, after one blank line, by its three closing lines.
func chapterOutput(chapter string) string {
	lines := strings.Split(chapter, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "== ") {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		for ; i < len(lines) && lines[i] != ""; i++ {
			out = append(out, lines[i])
		}
		if len(out) == 10 { // the four-round table: its claims follow a blank line
			out = append(out, "")
			for i++; i < len(lines) && lines[i] != ""; i++ {
				out = append(out, lines[i])
			}
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// goRenames replaces the Rust names the chapter's output uses with the Go
// API that plays their role; nothing else changes.
func goRenames(s string) string {
	r := strings.NewReplacer(
		"shrink_isr(now_ms)", "ShrinkISR(nowMs)",
		"ป้อน now_ms =", "ป้อน nowMs =",
		"shrink_isr คืน", "ShrinkISR คืน",
		"fetch_once", "FetchOnce",
		"become_leader", "BecomeLeader",
		"ได้ (epoch, end_offset)", "ได้ (epoch, end_offset, ok)",
		"`None` แปลว่าไม่พบ · ไม่ใช่ค่าพิเศษที่ยัดลง u64 เพราะ -1 ใส่ u64 ไม่ได้",
		"`ok == false` แปลว่าไม่พบ · ไม่ใช่ค่าพิเศษที่ยัดลง uint64 เพราะ -1 ใส่ uint64 ไม่ได้",
		"ที่ขอบของ wire เท่านั้นที่ `None`", "ที่ขอบของ wire เท่านั้นที่ `ok == false`",
		"`Option<(i32, u64)>`", "`(int32, uint64, bool)`",
		"Vec<i32>", "[]int32",
		"   None\n", "   (0, 0, false)\n",
	)
	s = r.Replace(s)
	// Some((e, o)) → (e, o, true)
	var b strings.Builder
	for {
		i := strings.Index(s, "Some((")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.Index(s[i:], "))")
		b.WriteString(s[:i])
		b.WriteString("(" + s[i+len("Some(("):i+j] + ", true)")
		s = s[i+j+2:]
	}
}

// The demo checks itself: let the follower fetch twice per round, so it
// learns the high watermark in the same round (as it would if the logs
// still ran in single-replica mode, the mistake the chapter warns of), and
// the demo refuses to print the one-round lag it can no longer see.
func TestDemoRefusesAClaimItDidNotShow(t *testing.T) {
	cfg := examples.WithFetchesPerRound(examples.ChapterConfig(t.TempDir()), 2)
	var out bytes.Buffer
	err := examples.Run(&out, cfg)
	if !errors.Is(err, examples.ErrClaimNotShown) {
		t.Fatalf("demo with two fetches a round: err %v, want ErrClaimNotShown", err)
	}
	if strings.Contains(out.String(), "ทุกรอบ ผู้ตามมี LEO สูงกว่า HW") {
		t.Fatal("the demo printed the claim before refusing it")
	}
}

// Other flags give other, correct runs.
func TestDemoOtherFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   func(*examples.Config)
		wants []string
	}{
		{"seven rounds", func(c *examples.Config) { c.Rounds = 7 }, []string{
			"== 7 รอบ",
			"    7  leader     1    7    6             -            -",
			"       follower   2    7    6             1            6",
			"produce แบบ acks=1 → base_offset 7 · error 0",
			"high watermark 6 → 6 (ไม่เลื่อน",
		}},
		{"another clock", func(c *examples.Config) { c.NowMs = 5 }, []string{
			"        2   5\n",
			"ป้อน nowMs = 30006 ซึ่งเลยเกณฑ์ 30000 ms",
		}},
		{"min ISR 1", func(c *examples.Config) { c.MinISR = 1 }, []string{
			"ต่ำกว่า min.insync.replicas แล้ว: ไม่",
			"produce แบบ acks=all → base_offset 4 · error 0",
			"produce แบบ acks=1 → base_offset 5 · error 0",
			"high watermark 4 → 6 (เลื่อนได้", // the shrink alone let the HW reach the LEO, 4
			"record ที่ offset 5 อยู่บน disk แล้ว และ committed แล้ว",
			"  HW ถึงแล้ว แต่ ISR หดหลัง append ไปแล้ว          Committed",
			"record ที่หายถาวร 1 ตัว",
			"record ที่หาย 0 ตัว",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := examples.ChapterConfig(t.TempDir())
			tc.cfg(&cfg)
			var out bytes.Buffer
			if err := examples.Run(&out, cfg); err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			for _, w := range tc.wants {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, cfg := range []examples.Config{
		{Rounds: 0, MinISR: 2, NowMs: 0, Dir: "x"},
		{Rounds: examples.MaxRounds + 1, MinISR: 2, NowMs: 0, Dir: "x"},
		{Rounds: 4, MinISR: 0, NowMs: 0, Dir: "x"},
		{Rounds: 4, MinISR: 3, NowMs: 0, Dir: "x"},
		{Rounds: 4, MinISR: 2, NowMs: -1, Dir: "x"},
		{Rounds: 4, MinISR: 2, NowMs: 1<<63 - 1, Dir: "x"},
	} {
		if err := cfg.Validate(); !errors.Is(err, examples.ErrInvalidConfig) {
			t.Errorf("%+v: %v, want ErrInvalidConfig", cfg, err)
		}
	}
	if _, err := examples.NewDemo(examples.ChapterConfig("")); !errors.Is(err, examples.ErrInvalidConfig) {
		t.Errorf("a demo without a directory: %v, want ErrInvalidConfig", err)
	}
}
