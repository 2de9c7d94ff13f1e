package kafka_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestInitProducerIDV2To5GiveANewIDAtEpoch0AndRefuseHalfAResume:
// InitProducerID v2-v5 (flexible) give an idempotent producer a new id
// at epoch 0 each time; from v3 the ProducerID and ProducerEpoch a
// producer names to resume (KIP-360) must both be -1 or neither
// (otherwise INVALID_REQUEST, as Kafka's KafkaApis answers), and are then
// not consulted, as Kafka's transaction coordinator does not consult them
// without a TransactionalID; a TransactionalID is refused at every
// version.
func TestInitProducerIDV2To5GiveANewIDAtEpoch0AndRefuseHalfAResume(t *testing.T) {
	c := startCluster(t, 1)
	rc := dialRaw(t, c.seeds()[0])
	ask := func(v int16, pid int64, epoch int16, txn *string) *kmsg.InitProducerIDResponse {
		t.Helper()
		req := kmsg.NewPtrInitProducerIDRequest()
		req.ProducerID, req.ProducerEpoch, req.TransactionalID = pid, epoch, txn
		return roundTrip(t, rc, req, v).(*kmsg.InitProducerIDResponse)
	}
	seen := map[int64]bool{}
	last := int64(-1)
	for v := int16(2); v <= 5; v++ {
		for _, resume := range []bool{false, true} {
			pid, epoch := int64(-1), int16(-1)
			if resume && v >= 3 {
				pid, epoch = last, 0
			}
			resp := ask(v, pid, epoch, nil)
			if resp.ErrorCode != 0 || resp.ProducerID < 0 || resp.ProducerEpoch != 0 || seen[resp.ProducerID] {
				t.Fatalf("InitProducerID v%d (%d, %d): error %d, id %d epoch %d; want a new id at epoch 0", v, pid, epoch, resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch)
			}
			seen[resp.ProducerID], last = true, resp.ProducerID
		}
		txn := "t"
		if resp := ask(v, -1, -1, &txn); resp.ErrorCode != 42 || resp.ProducerID != -1 || resp.ProducerEpoch != -1 {
			t.Errorf("InitProducerID v%d with a transactional id: %+v, want INVALID_REQUEST (42)", v, resp)
		}
		for _, half := range [][2]int64{{last, -1}, {-1, 3}} {
			resp := ask(v, half[0], int16(half[1]), nil)
			want := int16(42)
			if v < 3 { // not on the wire before v3
				want = 0
			}
			if resp.ErrorCode != want {
				t.Errorf("InitProducerID v%d (%d, %d): error %d, want %d", v, half[0], half[1], resp.ErrorCode, want)
			}
			if want == 0 {
				seen[resp.ProducerID] = true
			}
		}
	}
}
