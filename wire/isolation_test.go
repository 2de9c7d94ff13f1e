package wire

import (
	"math"
	"testing"

	"github.com/kaenlog/kaenlog/log"
)

// Ported from the chapter's a_follower_reads_to_the_log_end_and_a_consumer_
// stops_at_the_high_watermark: a follower is a consumer that carries a
// replica id, and the only difference is how far it may read.
func TestAFollowerReadsToTheLogEndAndAConsumerStopsAtTheHighWatermark(t *testing.T) {
	if got := IsolationOf(2); got != log.IsolationLogEnd {
		t.Errorf("IsolationOf(2) = %v, want LogEnd", got)
	}
	if got := IsolationOf(-1); got != log.IsolationHighWatermark {
		t.Errorf("IsolationOf(-1) = %v, want HighWatermark", got)
	}
}

func TestIsolationOfEdges(t *testing.T) {
	for id, want := range map[int32]log.Isolation{
		0:                 log.IsolationLogEnd,
		math.MaxInt32:     log.IsolationLogEnd,
		ConsumerReplicaID: log.IsolationHighWatermark,
		-2:                log.IsolationHighWatermark, // Kafka's "debug consumer" id is still not a follower
		math.MinInt32:     log.IsolationHighWatermark,
	} {
		if got := IsolationOf(id); got != want {
			t.Errorf("IsolationOf(%d) = %v, want %v", id, got, want)
		}
	}
}
