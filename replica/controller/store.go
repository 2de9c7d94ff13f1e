package controller

// Store is where the controller's metadata log lives. The controller is its
// only writer. Everything in a Store is committed: a single node stands in
// for KRaft's quorum, and a replicated Store (an existing consensus system)
// can replace it without the controller changing, as long as Append returns
// only once the batch is committed.
type Store interface {
	// Append makes batch (Kafka RecordBatch v2 bytes: the records of one
	// controller operation, written atomically) durable and committed,
	// returning its base offset. The store stamps the base offset into the
	// batch (the CRC does not cover it); the controller has already put
	// EndOffset() there and checks the returned base against it.
	Append(batch []byte) (base uint64, err error)
	// Read appends committed batches starting at from to dst (whole
	// batches, up to about maxBytes, at least one if any), like log.Log.Read
	// with high-watermark isolation. from at EndOffset returns dst
	// unchanged; from beyond it is an error.
	Read(dst []byte, from uint64, maxBytes int) ([]byte, error)
	// EndOffset is the offset the next record gets.
	EndOffset() uint64
	// Close releases the store.
	Close() error
}
