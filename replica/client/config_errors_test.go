package client

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
)

// A configuration the client cannot work with is refused where it is
// given — New, NewProducer, NewConsumer, CreateTopic — with
// ErrInvalidConfig naming the field and saying why, never sent to a
// broker to come back as "INVALID_REQUEST: request did not decode".
func TestAnInvalidConfigIsRefusedNamingItsField(t *testing.T) {
	clk := clock.NewManual(0)
	check := func(t *testing.T, what string, err error, field, why string) {
		t.Helper()
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: %v; want ErrInvalidConfig naming %s and saying %q", what, err, field, why)
		}
		if err != nil && strings.Contains(err.Error(), "INVALID_REQUEST") {
			t.Errorf("%s: %v says INVALID_REQUEST", what, err)
		}
	}
	for _, c := range []struct {
		cfg        Config
		field, why string
	}{
		{Config{Controller: "127.0.0.1:1"}, "Config.Clock", "nil"},
		{Config{Controller: "127.0.0.1:1", Clock: clk, RequestTimeoutMs: -1}, "Config.RequestTimeoutMs", "-1 is negative"},
		{Config{Controller: "127.0.0.1:1", Clock: clk, MaxFrameSize: -5}, "Config.MaxFrameSize", "-5 is negative"},
		{Config{Controller: "127.0.0.1:1", Clock: clk, MaxFrameSize: 10}, "Config.MaxFrameSize", "10 is below 1024"},
		{Config{Controller: "127.0.0.1:1", Clock: clk, RetryBackoffMs: 5000, RetryBackoffMaxMs: 10}, "Config.RetryBackoffMaxMs", "10 is below RetryBackoffMs 5000"},
	} {
		_, err := New(c.cfg)
		check(t, "New", err, c.field, c.why)
	}

	c, err := New(Config{Controller: "127.0.0.1:1", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, pc := range []struct {
		cfg        ProducerConfig
		field, why string
	}{
		{ProducerConfig{Acks: 9}, "ProducerConfig.Acks", "9 is not AcksAll"},
		{ProducerConfig{Partitioner: 7}, "ProducerConfig.Partitioner", "7 is not KeyPartitioner"},
		{ProducerConfig{BatchBytes: -1}, "ProducerConfig.BatchBytes", "-1 is negative"},
		{ProducerConfig{LingerMs: -1}, "ProducerConfig.LingerMs", "-1 is negative"},
		{ProducerConfig{MaxBlockMs: -1}, "ProducerConfig.MaxBlockMs", "-1 is negative"},
		{ProducerConfig{UnknownTopicRetries: -2}, "ProducerConfig.UnknownTopicRetries", "-2 is below -1"},
		{ProducerConfig{AckTimeoutMs: 1 << 32, DeliveryTimeoutMs: 1 << 33}, "ProducerConfig.AckTimeoutMs", "above 2147483647"},
		{ProducerConfig{DeliveryTimeoutMs: 1000}, "ProducerConfig.DeliveryTimeoutMs", "1000 is below LingerMs + AckTimeoutMs"},
		{ProducerConfig{MaxInFlight: 6}, "ProducerConfig.MaxInFlight", "6 is above 5"},
		{ProducerConfig{MaxRecordBytes: 1 << 30}, "ProducerConfig.MaxRecordBytes", "leaves no room"},
		{ProducerConfig{BatchBytes: 1 << 30}, "ProducerConfig.BatchBytes", "leaves no room"},
	} {
		_, err := c.NewProducer(pc.cfg)
		check(t, "NewProducer", err, pc.field, pc.why)
	}
	if _, err := c.NewProducer(ProducerConfig{Acks: AcksLeader, MaxInFlight: 100}); err != nil {
		t.Errorf("MaxInFlight 100 without idempotence: %v", err)
	}
	for _, cc := range []struct {
		cfg        ConsumerConfig
		field, why string
	}{
		{ConsumerConfig{MaxWaitMs: -1}, "ConsumerConfig.MaxWaitMs", "-1 is negative"},
		{ConsumerConfig{PartitionMaxBytes: -1}, "ConsumerConfig.PartitionMaxBytes", "-1 is negative"},
		{ConsumerConfig{DefaultAPITimeoutMs: -1}, "ConsumerConfig.DefaultAPITimeoutMs", "-1 is negative"},
	} {
		_, err := c.NewConsumer(cc.cfg)
		check(t, "NewConsumer", err, cc.field, cc.why)
	}
	for _, tc := range []struct {
		cfg        TopicConfig
		field, why string
	}{
		{TopicConfig{Name: "a", Partitions: 0, ReplicationFactor: 1}, "TopicConfig.Partitions", "at least 1 partition"},
		{TopicConfig{Name: "a", Partitions: 1, ReplicationFactor: 0}, "TopicConfig.ReplicationFactor", "at least 1 replica"},
		{TopicConfig{Name: "a", Partitions: 1, ReplicationFactor: 1, MinISR: -1}, "TopicConfig.MinISR", "-1 is negative"},
	} {
		check(t, "CreateTopic", c.CreateTopic(context.Background(), tc.cfg), tc.field, tc.why)
	}
}
