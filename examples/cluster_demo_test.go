package examples_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples"
)

const clusterGolden = "testdata/cluster-demo.golden"

func runClusterDemo(t *testing.T, cfg examples.ClusterDemoConfig) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := examples.RunClusterDemo(&out, cfg); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	return out.Bytes()
}

// The cluster demo prints its golden file, byte for byte (rewrite it with
// go test ./examples -run ClusterDemoMatchesGolden -update).
func TestClusterDemoMatchesGolden(t *testing.T) {
	got := runClusterDemo(t, examples.DefaultClusterDemoConfig())
	if *update {
		if err := os.WriteFile(clusterGolden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(clusterGolden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the cluster demo differs from %s:\n%s", clusterGolden, got)
	}
}

// Every run prints the same bytes.
func TestClusterDemoIsDeterministic(t *testing.T) {
	first := runClusterDemo(t, examples.DefaultClusterDemoConfig())
	for range 3 {
		if again := runClusterDemo(t, examples.DefaultClusterDemoConfig()); !bytes.Equal(first, again) {
			t.Fatal("two runs printed different bytes")
		}
	}
}

// The demo checks itself: run the fetch rounds before it looks, and it
// refuses to claim the acks=all write waited.
func TestClusterDemoRefusesAClaimItDidNotShow(t *testing.T) {
	var out bytes.Buffer
	err := examples.RunClusterDemo(&out, examples.WithEarlyRound(examples.DefaultClusterDemoConfig()))
	if !errors.Is(err, examples.ErrClaimNotShown) {
		t.Fatalf("err %v, want ErrClaimNotShown", err)
	}
	if strings.Contains(out.String(), "parks the answer") {
		t.Fatal("the demo printed the claim before refusing it")
	}
}

// Other flags give other, correct runs.
func TestClusterDemoOtherFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   func(*examples.ClusterDemoConfig)
		wants []string
	}{
		{"min ISR 1", func(c *examples.ClusterDemoConfig) { c.MinISR = 1 }, []string{"min.insync.replicas 1"}},
		{"min ISR 3", func(c *examples.ClusterDemoConfig) { c.MinISR = 3 }, []string{"min.insync.replicas 3"}},
		{"a shorter lag", func(c *examples.ClusterDemoConfig) { c.LagMaxMs = 4000 }, []string{"t=6.0s  ISR check: leader 1, leader epoch 0, partition epoch 1, ISR [1 2]"}},
		{"a longer session", func(c *examples.ClusterDemoConfig) { c.SessionTimeoutMs = 20_000 }, []string{"t=20.0s  its session expired"}},
		{"another clock", func(c *examples.ClusterDemoConfig) { c.NowMs = 0 }, []string{"t=45.0s  ISR check"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := examples.DefaultClusterDemoConfig()
			tc.cfg(&cfg)
			out := string(runClusterDemo(t, cfg))
			for _, w := range tc.wants {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestClusterDemoConfigValidate(t *testing.T) {
	for _, mod := range []func(*examples.ClusterDemoConfig){
		func(c *examples.ClusterDemoConfig) { c.NowMs = -1 },
		func(c *examples.ClusterDemoConfig) { c.MinISR = 0 },
		func(c *examples.ClusterDemoConfig) { c.MinISR = 4 },
		func(c *examples.ClusterDemoConfig) { c.LagMaxMs = 999 },
		func(c *examples.ClusterDemoConfig) { c.LagMaxMs = 600_001 },
		func(c *examples.ClusterDemoConfig) { c.SessionTimeoutMs = 2000 },
	} {
		cfg := examples.DefaultClusterDemoConfig()
		mod(&cfg)
		if err := cfg.Validate(); !errors.Is(err, examples.ErrInvalidConfig) {
			t.Errorf("%+v: %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
