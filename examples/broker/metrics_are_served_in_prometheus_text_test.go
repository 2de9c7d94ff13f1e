package main

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// TestMetricsAreServedInPrometheusText: a controller and a broker started
// with -metrics-listen print where they serve /metrics, and a GET there
// answers Prometheus' text format with the node's families.
func TestMetricsAreServedInPrometheusText(t *testing.T) {
	ctlBin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/controller")
	bin := cmdtest.Build(t, "github.com/kaenlog/kaenlog/examples/broker")
	dir := t.TempDir()
	ctl := cmdtest.Start(t, ctlBin, nil, "-listen", "127.0.0.1:0", "-dir", filepath.Join(dir, "controller"), "-metrics-listen", "127.0.0.1:0")
	ctlMetrics := strings.Fields(ctl.Await("controller metrics on "))[3]
	addr := strings.TrimSuffix(strings.Fields(ctl.Await("controller listening on "))[3], ",")
	b := cmdtest.Start(t, bin, nil, "-id", "1", "-listen", "127.0.0.1:0", "-controller", addr,
		"-dir", filepath.Join(dir, "broker-1"), "-metrics-listen", "127.0.0.1:0")
	brokerMetrics := strings.Fields(b.Await("broker 1 metrics on "))[4]
	b.Await("broker 1 ready")

	for url, want := range map[string][]string{
		brokerMetrics: {`(?m)^# TYPE kaenlog_under_replicated_partitions gauge$`, `(?m)^kaenlog_broker_fenced 0$`},
		ctlMetrics: {`(?m)^kaenlog_active_controller_count 1$`, `(?m)^kaenlog_active_broker_count 1$`,
			`(?m)^kaenlog_requests_total\{api="BrokerRegistration"\} 1$`},
	} {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/plain; version=0.0.4; charset=utf-8" {
			t.Fatalf("GET %s: %d %q %v", url, resp.StatusCode, resp.Header.Get("Content-Type"), err)
		}
		for _, w := range want {
			if !regexp.MustCompile(w).Match(body) {
				t.Errorf("GET %s has no %s:\n%s", url, w, body)
			}
		}
	}
}
