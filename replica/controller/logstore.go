package controller

import (
	"fmt"

	"github.com/kaenlog/kaenlog/log"
)

// OpenLogStore opens (creating it if missing) a metadata log in dir: a
// log.Log with SyncEveryAppend, whatever opts.Sync says, so that Append
// returns only once the batch is fsynced. The log is the only replica of
// the metadata, so its high watermark follows its log end (the log's eager
// mode): everything appended is committed. At open the high watermark is
// raised to the recovered log end, since every batch that survived
// recovery was fsynced before its Append returned, or at least before any
// later one did.
//
// A store over an in-memory file system, for tests and the simulator, waits
// for package log to take one (log/vfs).
func OpenLogStore(dir string, opts log.Options) (Store, error) {
	opts.Sync = log.SyncEveryAppend
	l, err := log.Open(dir, opts)
	if err != nil {
		return nil, fmt.Errorf("controller: opening the metadata log: %w", err)
	}
	if hw, end := l.HighWatermark(), l.EndOffset(); hw < end {
		if err := l.SetHighWatermark(end); err != nil {
			l.Close()
			return nil, fmt.Errorf("controller: opening the metadata log: %w", err)
		}
	}
	return &logStore{l: l}, nil
}

// logStore is a Store over a log.Log.
type logStore struct{ l *log.Log }

// metadataLeaderEpoch is the partitionLeaderEpoch stamped on every batch:
// with one node standing in for the quorum there is one epoch.
const metadataLeaderEpoch = 0

// Append appends batch as the log's leader and returns its base offset.
// The log validates it as a producer's batch, which has base offset 0: the
// log stamps the offset.
func (s *logStore) Append(batch []byte) (uint64, error) {
	if err := log.SetBaseOffset(batch, 0); err != nil {
		return 0, err
	}
	info, err := s.l.AppendAsLeader(batch, metadataLeaderEpoch)
	return info.FirstOffset, err
}

// Read reads whole batches up to the high watermark, which is the log end.
func (s *logStore) Read(dst []byte, from uint64, maxBytes int) ([]byte, error) {
	return s.l.Read(dst, from, maxBytes, log.IsolationHighWatermark)
}

// EndOffset is the log end offset.
func (s *logStore) EndOffset() uint64 { return s.l.EndOffset() }

// Close closes the log, checkpointing its high watermark.
func (s *logStore) Close() error { return s.l.Close() }
