package replica_test

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// An acks=all write that times out is retried. A follower is cut off but
// still in the ISR, so the write cannot commit and the producer hears
// REQUEST_TIMED_OUT; it sends the same batch again, and the follower comes
// back. A plain producer's retry is a second copy of the record (the
// chapter's TwoErrors). An idempotent producer's — an id from the
// controller, the batch carrying its id, epoch and sequence — is recognised
// by the leader and answered with the first attempt's offset: the record is
// in every log once.
func Example_idempotentRetry() {
	c := exampleCluster([]int32{1, 2, 3}, 2, 1, 2, 3)
	defer c.Close()
	attempt := func(what string, batch []byte, timeoutMs int32) {
		call := c.SendProduceBatch(topic, wire.AcksAll, timeoutMs, batch)
		if err := c.AwaitProduce(call, 60_000); err != nil {
			panic(err)
		}
		resp, _, _ := call.Result()
		fmt.Printf("  %s: %v at offset %d\n", what, resp.ErrorCode, resp.BaseOffset)
	}
	retried := func(name string, batch []byte) {
		fmt.Println(name)
		cutOff(c, 3, replica.BrokerAt(1))
		attempt("first attempt", batch, 1000)
		c.Network().Heal()
		attempt("retry", batch, 60_000)
	}

	plain, _ := replica.ProducerBatch(wire.NoProducerID, wire.NoProducerEpoch, -1, c.NowMs(), []byte("pay 10"))
	retried("plain producer", plain)

	id, epoch, err := c.InitProducerID()
	if err != nil {
		panic(err)
	}
	idem, _ := replica.ProducerBatch(id, epoch, 0, c.NowMs(), []byte("pay 20"))
	retried(fmt.Sprintf("idempotent producer (id %d, epoch %d)", id, epoch), idem)

	for range 3 {
		c.FetchRound()
	}
	for _, b := range c.BrokerIDs() {
		fmt.Println("broker", b, held(c, b))
	}
	// Output:
	// plain producer
	//   first attempt: REQUEST_TIMED_OUT at offset 0
	//   retry: NONE at offset 1
	// idempotent producer (id 0, epoch 0)
	//   first attempt: REQUEST_TIMED_OUT at offset 2
	//   retry: NONE at offset 2
	// broker 1 [pay 10 pay 10 pay 20]
	// broker 2 [pay 10 pay 10 pay 20]
	// broker 3 [pay 10 pay 10 pay 20]
}
