package kafka_test

import (
	"testing"

	"github.com/kaenlog/kaenlog/log"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// roundTrip sends req at version v on rc and decodes its response at v,
// checking the correlation id and the response header: v0 for
// ApiVersions at every version (KIP-511) and for a non-flexible version,
// v1 (one byte of tagged fields, none) for a flexible one.
func roundTrip(t *testing.T, rc *rawConn, req kmsg.Request, v int16) kmsg.Response {
	t.Helper()
	rc.request(req, v, int32(1000+v))
	corr, body := rc.response()
	if corr != int32(1000+v) {
		t.Fatalf("%T v%d: correlation %d, want %d", req, v, corr, 1000+v)
	}
	if req.IsFlexible() && req.Key() != 18 {
		if len(body) == 0 || body[0] != 0 {
			t.Fatalf("%T v%d: the response header's tagged fields are % x, want one 0", req, v, body[:min(len(body), 1)])
		}
		body = body[1:]
	}
	resp := req.ResponseKind()
	resp.SetVersion(v)
	if err := resp.ReadFrom(body); err != nil {
		t.Fatalf("%T v%d: the response does not decode: %v", req, v, err)
	}
	return resp
}

// recordBatch returns one record batch of values, with base timestamp
// ts, as a client produces it.
func recordBatch(t *testing.T, ts int64, values ...string) []byte {
	t.Helper()
	recs := make([]log.Record, len(values))
	for i, v := range values {
		recs[i] = log.Record{OffsetDelta: int32(i), Value: []byte(v)}
	}
	b, err := log.AppendBatch(nil, &log.Batch{BaseTimestamp: ts, MaxTimestamp: ts,
		ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: recs})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// produceTo returns a Produce request of records to topic's partition p.
func produceTo(topic string, p int32, records []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 10_000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = p, records
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}
