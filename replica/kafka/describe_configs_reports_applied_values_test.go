package kafka_test

import (
	"errors"
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/kafka"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// configOf returns the named config of rc, failing without it.
func configOf(t *testing.T, rc kadm.ResourceConfig, name string) kadm.Config {
	t.Helper()
	for _, c := range rc.Configs {
		if c.Key == name {
			return c
		}
	}
	t.Fatalf("%q has no config %s", rc.Name, name)
	return kadm.Config{}
}

// kadm's DescribeTopicConfigs and DescribeBrokerConfigs get the values the
// broker applies, each with its source; an unknown topic is
// UNKNOWN_TOPIC_OR_PARTITION for its resource alone.
func TestDescribeConfigsReportsWhatTheBrokerApplies(t *testing.T) {
	c := startKafkaCluster(t, 2, kafka.Config{AutoCreateTopics: true, DefaultPartitions: 4})
	c.createTopic("plain", 1, 2, 0)
	adm := adminClient(t, c)
	ctx := ctxFor(t)
	if r, err := adm.CreateTopic(ctx, 1, 2, map[string]*string{"min.insync.replicas": kadm.StringPtr("2"), "unclean.leader.election.enable": kadm.StringPtr("true")}, "tuned"); err != nil || r.Err != nil {
		t.Fatalf("CreateTopic: %v %v", err, r.Err)
	}
	c.awaitBrokers()

	rcs, err := adm.DescribeTopicConfigs(ctx, "plain", "tuned", "absent")
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]kadm.ResourceConfig{}
	for _, rc := range rcs {
		byName[rc.Name] = rc
	}
	if !errors.Is(byName["absent"].Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("an unknown topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", byName["absent"].Err)
	}
	for _, tc := range []struct {
		topic, name, value string
		source             kmsg.ConfigSource
	}{
		{"plain", "min.insync.replicas", "1", kmsg.ConfigSourceDefaultConfig},
		{"plain", "unclean.leader.election.enable", "false", kmsg.ConfigSourceDefaultConfig},
		{"plain", "cleanup.policy", "delete", kmsg.ConfigSourceDefaultConfig},
		{"plain", "retention.ms", "604800000", kmsg.ConfigSourceDefaultConfig},
		{"plain", "retention.bytes", "-1", kmsg.ConfigSourceDefaultConfig},
		{"plain", "segment.bytes", "1073741824", kmsg.ConfigSourceDefaultConfig},
		{"plain", "max.message.bytes", "1048588", kmsg.ConfigSourceDefaultConfig},
		{"tuned", "min.insync.replicas", "2", kmsg.ConfigSourceDynamicTopicConfig},
		{"tuned", "unclean.leader.election.enable", "true", kmsg.ConfigSourceDynamicTopicConfig},
	} {
		rc := byName[tc.topic]
		if rc.Err != nil {
			t.Fatalf("%s: %v", tc.topic, rc.Err)
		}
		got := configOf(t, rc, tc.name)
		if got.MaybeValue() != tc.value || got.Source != tc.source {
			t.Errorf("%s %s = %q from %v, want %q from %v", tc.topic, tc.name, got.MaybeValue(), got.Source, tc.value, tc.source)
		}
	}

	brs, err := adm.DescribeBrokerConfigs(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(brs) != 1 || brs[0].Err != nil {
		t.Fatalf("broker 2's configs: %+v", brs)
	}
	for _, tc := range []struct {
		name, value string
		source      kmsg.ConfigSource
	}{
		{"broker.id", "2", kmsg.ConfigSourceStaticBrokerConfig},
		{"auto.create.topics.enable", "true", kmsg.ConfigSourceStaticBrokerConfig},
		{"num.partitions", "4", kmsg.ConfigSourceStaticBrokerConfig},
		{"default.replication.factor", "1", kmsg.ConfigSourceDefaultConfig},
		{"log.segment.bytes", "1073741824", kmsg.ConfigSourceDefaultConfig},
		{"message.max.bytes", "1048588", kmsg.ConfigSourceDefaultConfig},
		{"log.retention.ms", "604800000", kmsg.ConfigSourceDefaultConfig},
		{"log.cleanup.policy", "delete", kmsg.ConfigSourceDefaultConfig},
	} {
		got := configOf(t, brs[0], tc.name)
		if got.MaybeValue() != tc.value || got.Source != tc.source {
			t.Errorf("broker %s = %q from %v, want %q from %v", tc.name, got.MaybeValue(), got.Source, tc.value, tc.source)
		}
	}
	if log.DefaultSegmentBytes != 1<<30 || log.DefaultMaxBatchBytes != 1048588 {
		t.Fatal("the log's defaults moved: update the values above")
	}

	// IncrementalAlterConfigs changes a topic's own configs through any
	// broker; DescribeConfigs then reports them as the topic's.
	ar, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{
		{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("60000")},
		{Op: kadm.AppendConfig, Name: "cleanup.policy", Value: kadm.StringPtr("compact")},
	}, "plain")
	if err != nil || len(ar) != 1 || ar[0].Err != nil {
		t.Fatalf("AlterTopicConfigs: %v %+v", err, ar)
	}
	bad, err := adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{{Op: kadm.SetConfig, Name: "retention.ms", Value: kadm.StringPtr("-5")}}, "plain")
	if err != nil || len(bad) != 1 || !errors.Is(bad[0].Err, kerr.InvalidConfig) {
		t.Fatalf("retention.ms -5: %v %+v, want INVALID_CONFIG", err, bad)
	}
	c.awaitBrokers()
	rcs, err = adm.DescribeTopicConfigs(ctx, "plain")
	if err != nil || len(rcs) != 1 {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"retention.ms": "60000", "cleanup.policy": "delete,compact"} {
		if got := configOf(t, rcs[0], name); got.MaybeValue() != want || got.Source != kmsg.ConfigSourceDynamicTopicConfig {
			t.Errorf("after the change, plain %s = %q from %v, want %q, the topic's own", name, got.MaybeValue(), got.Source, want)
		}
	}
}
