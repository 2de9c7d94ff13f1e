package replica

import "github.com/kaenlog/kaenlog/replica/clock"

// The idempotent producer's state lives in the log (log.Log.Producers);
// the replica only runs its expiry, on the clock it is handed.

// DefaultProducerExpirationCheckMs is how often a replica forgets expired
// producers when Options.ProducerExpirationCheckMs is 0: ten minutes,
// Kafka's producer.id.expiration.check.interval.ms.
const DefaultProducerExpirationCheckMs = 600_000

func (o Options) producerExpirationCheckMs() int64 {
	if o.ProducerExpirationCheckMs <= 0 {
		return DefaultProducerExpirationCheckMs
	}
	return o.ProducerExpirationCheckMs
}

// expireProducers asks the log, at most every ProducerExpirationCheckMs,
// to forget the producers whose last batch is older than
// log.Options.ProducerIDExpirationMs (never one with a batch above the
// high watermark). Tick calls it in either role, as Kafka expires producer
// state on every replica. It adds nothing to NextTickMs: a broker ticks
// every replica at each heartbeat, and a leader ticks for its ISR check, so
// the check runs within one of those of being due. A failed log refuses,
// and its broker halts on that failure elsewhere (Broker.Tick's checkLogs).
func (r *Replica) expireProducers(nowMs int64) {
	if nowMs < r.nextExpiryMs {
		return
	}
	r.nextExpiryMs = clock.Deadline(nowMs, r.opts.producerExpirationCheckMs())
	r.log.RemoveExpiredProducers(nowMs)
}
