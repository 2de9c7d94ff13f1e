package examples

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// ErrClaimNotShown is returned (wrapped, with the claim and the numbers that
// contradict it) when a section is about to print a claim that the run did
// not bear out.
var ErrClaimNotShown = errors.New("kaenlog/examples: the demo did not show what it claims")

// ErrInvalidConfig is returned (wrapped) by NewDemo for a configuration the
// demo cannot run.
var ErrInvalidConfig = errors.New("kaenlog/examples: invalid demo configuration")

// Limits of the demo's flags.
const (
	// MaxRounds bounds --rounds: enough to see any pattern, small enough to
	// print.
	MaxRounds = 10000
	// Replicas is how many brokers the chapter's cluster has; --min-isr may
	// not ask for more, or nothing could ever commit.
	Replicas = 2
)

// Config is what the demo's flags set.
type Config struct {
	// Rounds is how many produce-then-FetchOnce rounds the first section
	// drives (--rounds), 1 to MaxRounds.
	Rounds int
	// MinISR is min.insync.replicas (--min-isr), 1 to Replicas.
	MinISR int
	// NowMs is the clock handed to every step (--now-ms): 0 or more, and
	// small enough that NowMs + replica.lag.time.max.ms + 1 fits an int64.
	NowMs int64
	// Dir is where the brokers' directories go: an existing directory that
	// the demo writes below. RunInTempDir fills it in.
	Dir string

	// fetchesPerRound, when above 1, makes the first section run that many
	// fetches per round: the follower then learns the high watermark in the
	// same round and the one-round lag cannot be seen. Only the demo's own
	// test sets it, to show the demo refuses a claim it did not show.
	fetchesPerRound int
}

// ChapterConfig returns the chapter's run: 4 rounds, min.insync.replicas 2,
// now 1700000000000, under dir.
func ChapterConfig(dir string) Config {
	return Config{Rounds: 4, MinISR: 2, NowMs: 1700000000000, Dir: dir}
}

// Validate reports flag values the demo cannot run with, wrapping
// ErrInvalidConfig. It does not look at Dir, which NewDemo checks.
func (c Config) Validate() error {
	switch {
	case c.Rounds < 1 || c.Rounds > MaxRounds:
		return fmt.Errorf("%w: rounds %d: want 1 to %d", ErrInvalidConfig, c.Rounds, MaxRounds)
	case c.MinISR < 1 || c.MinISR > Replicas:
		return fmt.Errorf("%w: min-isr %d: want 1 to %d (the cluster has %d replicas)", ErrInvalidConfig, c.MinISR, Replicas, Replicas)
	case c.NowMs < 0 || c.NowMs > math.MaxInt64-2*lagMaxMs-2:
		return fmt.Errorf("%w: now-ms %d: want 0 to %d", ErrInvalidConfig, c.NowMs, int64(math.MaxInt64-2*lagMaxMs-2))
	}
	return nil
}

// Demo runs the chapter's sections in order against real directories.
// Sections that continue a story (the ISR shrink continues the rounds, the
// immediate consequences continue the shrink) run what they need first when
// called alone.
type Demo struct {
	cfg Config
	// main is the cluster of the first four sections.
	main *replica.ChapterCluster
	// roundsDone and shrinkDone record which steps of the main story have
	// run, so a later section called alone can run them first.
	roundsDone, shrinkDone bool
}

// lagMaxMs is replica.lag.time.max.ms: the demo runs with Kafka's default.
const lagMaxMs = isr.DefaultLagMaxMs

// NewDemo validates cfg and returns a demo that has run nothing yet.
func NewDemo(cfg Config) (*Demo, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%w: no directory for the brokers", ErrInvalidConfig)
	}
	return &Demo{cfg: cfg}, nil
}

// Close closes every broker the demo opened. The directories stay.
func (d *Demo) Close() error {
	if d.main == nil {
		return nil
	}
	err := d.main.Close()
	d.main = nil
	return err
}

// Section is one block of the demo's output.
type Section struct {
	// Name is a short English name, used for the Example and error texts.
	Name string
	// Run checks the section's claims and prints it to w.
	Run func(d *Demo, w io.Writer) error
}

// Sections lists the demo's sections in the chapter's order.
var Sections = []Section{
	{"Rounds", (*Demo).Rounds},
	{"ShrinkByTime", (*Demo).ShrinkByTime},
	{"TwoJudges", (*Demo).TwoJudges},
	{"Consequences", (*Demo).Consequences},
	{"TwoErrors", (*Demo).TwoErrors},
	{"HighWatermarkTruncation", (*Demo).HighWatermarkTruncation},
	{"EpochTruncation", (*Demo).EpochTruncation},
	{"EpochVector", (*Demo).EpochVector},
	{"Refusals", (*Demo).Refusals},
	{"DrawnNotBuilt", (*Demo).DrawnNotBuilt},
}

// Run prints every section, in order, separated by blank lines. It stops at
// the first section whose claim the run did not bear out.
func Run(w io.Writer, cfg Config) (err error) {
	d, err := NewDemo(cfg)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, d.Close()) }()
	for i, s := range Sections {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := s.Run(d, w); err != nil {
			return fmt.Errorf("section %s: %w", s.Name, err)
		}
	}
	return nil
}

// RunInTempDir is Run with the brokers' directories in a fresh temporary
// directory that is removed afterwards.
func RunInTempDir(w io.Writer, cfg Config) (err error) {
	dir, err := os.MkdirTemp("", "kaenlog-replica-demo-")
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	cfg.Dir = dir
	return Run(w, cfg)
}

// claim returns an ErrClaimNotShown error unless ok.
func claim(ok bool, format string, args ...any) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%w: "+format, append([]any{ErrClaimNotShown}, args...)...)
}

// printer collects a section's lines so nothing is printed before every
// claim has been checked.
type printer struct{ b strings.Builder }

func (p *printer) line(format string, args ...any) {
	fmt.Fprintf(&p.b, format, args...)
	p.b.WriteByte('\n')
}

func (p *printer) flush(w io.Writer) error {
	_, err := io.WriteString(w, p.b.String())
	return err
}

// ids formats an ISR as the chapter prints it: [1, 2].
func ids(v []int32) string { return "[" + joinIDs(v) + "]" }

// joinIDs formats broker ids as a list: 1, 2.
func joinIDs(v []int32) string {
	parts := make([]string, len(v))
	for i, id := range v {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}

// comma formats an (epoch, endOffset, ok) result the Go way.
func comma(e int32, end uint64, ok bool) string {
	return fmt.Sprintf("(%d, %d, %t)", e, end, ok)
}

// sub returns a fresh directory for one scenario under the demo's root.
func (d *Demo) sub(name string) string { return filepath.Join(d.cfg.Dir, name) }

func (d *Demo) openCluster(name string) (*replica.ChapterCluster, error) {
	return replica.OpenChapterCluster(d.sub(name), d.cfg.MinISR, d.cfg.NowMs)
}

// codeText is how the demo names an error code: "error 2".
func codeText(c wire.ErrorCode) string { return fmt.Sprintf("error %d", int16(c)) }
