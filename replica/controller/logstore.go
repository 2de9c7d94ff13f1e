package controller

import (
	"fmt"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica/metaprops"
)

// OpenNodeLogStore opens the metadata log in dir as OpenLogStore does, once
// dir's stamp (package metaprops) says it is controller nodeID's of cluster
// clusterID; at the first start it stamps dir so. A directory stamped for a
// broker, another node id or another cluster is refused, the error naming
// both values (metaprops.ErrInconsistentNode, ErrInconsistentClusterID).
// clusterID may be empty when dir is stamped: the stamp's is used. The
// returned stamp's ClusterID is what Config.ClusterID should be.
func OpenNodeLogStore(dir string, nodeID int32, clusterID string, opts log.Options) (Store, metaprops.Properties, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = vfs.OS()
	}
	want := metaprops.Properties{ClusterID: clusterID, NodeID: nodeID, Role: metaprops.RoleController}
	if clusterID == "" {
		if _, ok, err := metaprops.Read(fsys, dir); err != nil {
			return nil, metaprops.Properties{}, fmt.Errorf("controller: %w", err)
		} else if !ok {
			return nil, metaprops.Properties{}, fmt.Errorf("controller: %s has no stamp, and a new controller directory needs a cluster id: %w", dir, metaprops.ErrInvalid)
		}
	}
	stamp, _, err := metaprops.Ensure(fsys, dir, want)
	if err != nil {
		return nil, metaprops.Properties{}, fmt.Errorf("controller: %w", err)
	}
	store, err := OpenLogStore(dir, opts)
	return store, stamp, err
}

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
//
// It refuses a directory stamped as a broker's (metaprops.ErrInconsistentNode):
// a broker's data directory is never taken for a metadata log.
// OpenNodeLogStore also checks and writes the stamp.
func OpenLogStore(dir string, opts log.Options) (Store, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = vfs.OS()
	}
	if stamp, ok, err := metaprops.Read(fsys, dir); err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	} else if ok && stamp.Role != metaprops.RoleController {
		return nil, fmt.Errorf("controller: %w: %s is stamped for %s, not a controller's", metaprops.ErrInconsistentNode, dir, stamp)
	}
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

func (s *logStore) Append(batch []byte) (uint64, error) {
	// The log takes batches as a leader takes a producer's: based at 0,
	// stamped with their real offset as they are appended.
	if err := log.SetBaseOffset(batch, 0); err != nil {
		return 0, err
	}
	info, err := s.l.AppendAsLeader(batch, metadataLeaderEpoch)
	return info.FirstOffset, err
}

func (s *logStore) Read(dst []byte, from uint64, maxBytes int) ([]byte, error) {
	return s.l.Read(dst, from, maxBytes, log.IsolationHighWatermark)
}

func (s *logStore) EndOffset() uint64 { return s.l.EndOffset() }

func (s *logStore) Close() error { return s.l.Close() }
