package client

import (
	"testing"

	"github.com/kaenlog/kaenlog/replica/clock"
	"github.com/kaenlog/kaenlog/wire"
)

// A record's key chooses its partition as Kafka's default partitioner
// does, whatever its Partition says; a record without a key goes to its
// Partition; ManualPartitioner keeps every record's Partition.
func TestAKeyChoosesItsPartitionAsKafkasDefaultPartitioner(t *testing.T) {
	const parts = 5
	for _, c := range []struct {
		name   string
		cfg    ProducerConfig
		rec    Record
		want   int32
		single bool
	}{
		{"key", ProducerConfig{Acks: AcksLeader}, Record{Key: []byte("foobar")}, PartitionForKey([]byte("foobar"), parts), true},
		{"key, Partition ignored", ProducerConfig{Acks: AcksLeader}, Record{Key: []byte("21"), Partition: 4}, PartitionForKey([]byte("21"), parts), true},
		{"empty key is a key", ProducerConfig{Acks: AcksLeader}, Record{Key: []byte{}, Partition: 4}, PartitionForKey(nil, parts), true},
		{"no key", ProducerConfig{Acks: AcksLeader}, Record{Partition: 3}, 3, true},
		{"manual", ProducerConfig{Acks: AcksLeader, Partitioner: ManualPartitioner}, Record{Key: []byte("foobar"), Partition: 1}, 1, true},
		{"key, ProduceManyAsync", ProducerConfig{Acks: AcksLeader}, Record{Key: []byte("abc")}, PartitionForKey([]byte("abc"), parts), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			fc := newFakeCluster(t, 1, parts)
			clk := clock.NewManual(0)
			cl := newTestClient(t, fc, clk)
			p, err := cl.NewProducer(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			rec := c.rec
			rec.Topic, rec.Value = "t", []byte("v")
			out := make(chan outcome, 1)
			if c.single {
				err = p.ProduceAsync(rec, func(off Offset, err error) { out <- outcome{off, err} })
			} else {
				_, err = p.ProduceManyAsync([]Record{rec}, func(_, _ int, off Offset, err error) { out <- outcome{off, err} })
			}
			if err != nil {
				t.Fatal(err)
			}
			r := fc.brokers[1].next(t)
			if got := r.produce(t).Partitions[0].Partition; got != c.want {
				t.Fatalf("sent to partition %d, want %d", got, c.want)
			}
			r.answerProduce(t, wire.CodeNone, 0)
			if o := await(t, out); o.err != nil || o.off.Partition != c.want {
				t.Fatalf("outcome %+v, want partition %d", o, c.want)
			}
		})
	}
}
