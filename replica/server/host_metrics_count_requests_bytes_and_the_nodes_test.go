package server_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/kaenlog/kaenlog/examples/wallclock"
	"github.com/kaenlog/kaenlog/replica"
	kclient "github.com/kaenlog/kaenlog/replica/client"
	"github.com/kaenlog/kaenlog/replica/metrics"
	"github.com/kaenlog/kaenlog/replica/server"
)

// TestHostMetricsCountRequestsBytesAndTheNodes: after a topic is created
// and three records produced through a broker's host, its /metrics text
// counts the Produce requests with their latencies, the bytes both ways,
// and carries the broker's own families (a partition led, its log end);
// the controller's host carries the controller's (one active controller,
// one broker, no offline partition).
func TestHostMetricsCountRequestsBytesAndTheNodes(t *testing.T) {
	dir := t.TempDir()
	clk := wallclock.New()
	ctl, err := server.StartController(server.ControllerSpec{Dir: filepath.Join(dir, "controller"), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.Close()
	b, err := server.StartBroker(server.BrokerSpec{Broker: replica.BrokerConfig{ID: 1, Dir: filepath.Join(dir, "b1")},
		Controller: ctl.Addr().String(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.WaitReady(ctx); err != nil {
		t.Fatalf("waiting for broker 1 to be unfenced: %v", err)
	}
	c, err := kclient.New(kclient.Config{Controller: ctl.Addr().String(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateTopic(ctx, kclient.TopicConfig{Name: "m", Partitions: 1, ReplicationFactor: 1, MinISR: 1}); err != nil {
		t.Fatal(err)
	}
	p, err := c.NewProducer(kclient.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := p.Produce(ctx, kclient.Record{Topic: "m", Value: []byte("v")}); err != nil {
			t.Fatal(err)
		}
	}
	text := func(h interface {
		Metrics([]metrics.Family) []metrics.Family
	}) string {
		var buf bytes.Buffer
		if err := metrics.WriteText(&buf, h.Metrics(nil)); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	broker := text(b)
	for _, want := range []string{
		`(?m)^kaenlog_requests_total\{api="Produce"\} [3-9]$`,
		`(?m)^kaenlog_request_total_time_ms_count\{api="Produce"\} [3-9]$`,
		`(?m)^kaenlog_network_bytes_in_total [1-9][0-9]*$`,
		`(?m)^kaenlog_network_bytes_out_total [1-9][0-9]*$`,
		`(?m)^kaenlog_leader_count 1$`,
		`(?m)^kaenlog_log_end_offset\{topic="m",partition="0"\} 3$`,
		`(?m)^kaenlog_broker_fenced 0$`,
	} {
		if !regexp.MustCompile(want).MatchString(broker) {
			t.Errorf("the broker's metrics have no %s:\n%s", want, broker)
		}
	}
	controller := text(ctl)
	for _, want := range []string{
		`(?m)^kaenlog_active_controller_count 1$`,
		`(?m)^kaenlog_active_broker_count 1$`,
		`(?m)^kaenlog_offline_partitions_count 0$`,
		`(?m)^kaenlog_global_partition_count 1$`,
		`(?m)^kaenlog_requests_total\{api="BrokerRegistration"\} 1$`,
	} {
		if !regexp.MustCompile(want).MatchString(controller) {
			t.Errorf("the controller's metrics have no %s:\n%s", want, controller)
		}
	}
}
