package replica

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/kaenlog/kaenlog/wire"
)

// This file is how a broker follows topic deletions (Kafka's
// RemoveTopicRecord, as KRaft brokers apply it): the replicas of a topic
// the metadata no longer has, or has under a new creation, stop, leave
// the fetcher and the purgatory, and their logs are deleted from disk.

// deletingFile marks a partition directory whose deletion began: written
// durably before the first file goes, so that a broker that stops midway
// finishes the deletion at its next start instead of opening what is left
// as a log (Kafka renames the directory to "<name>-delete" for the same
// reason; vfs has no directory rename).
const deletingFile = "partition.deleting"

// removeDeletedReplicas stops and deletes every hosted replica whose topic
// is gone from the image: removed, or removed and created again (its
// controller.Topic.CreatedOffset differs from the one the replica was
// opened for). A replica opened from disk at start is matched with its
// topic only once the image has caught up with the broker's own
// registration: a topic absent then, or one whose partition does not list
// this broker, was deleted while the broker was down (a stray log, deleted
// as Kafka 3.7+ deletes strays); one present that lists it is taken to be
// the replica's own (kaenlog keeps no topic id beside the log, as Kafka's
// partition.metadata file does: createdFile plays its part, so a topic
// deleted and created again while the broker was down is told from the
// old one by the CreatedOffset the directory records; a directory that
// records none is taken to be the topic's).
func (b *Broker) removeDeletedReplicas() {
	caughtUp := b.epoch >= 0 && b.image.EndOffset() > uint64(b.epoch)
	for _, h := range slices.Clone(b.hosted) {
		t, exists := b.image.Topic(h.tp.Topic)
		created, known := b.created[h.tp]
		switch {
		case exists && known && created == t.CreatedOffset && b.assigned(h.tp):
			continue
		case exists && known && created == t.CreatedOffset && !caughtUp:
			continue // the image may not yet list this broker again
		case exists && known && created == t.CreatedOffset:
			// A reassignment took this broker off the partition: its
			// replica is stopped and deleted, as Kafka's StopReplica
			// with deletion.
		case !known && !caughtUp:
			continue // not yet known which topic the files are
		case exists && !known && b.assigned(h.tp):
			if stamp, ok := b.stamped[h.tp]; ok && stamp != t.CreatedOffset {
				break // the log of a topic deleted and created again
			}
			delete(b.stamped, h.tp)
			b.created[h.tp] = t.CreatedOffset
			if err := b.stampCreated(h.tp, t.CreatedOffset); err != nil {
				b.halted = fmt.Errorf("replica: broker %d halted: recording the topic of %s: %w", b.cfg.ID, h.tp, storageError(err))
				return
			}
			continue
		}
		b.deleteReplica(h.tp, h.r)
	}
}

// assigned reports whether the image lists this broker as a replica of tp.
func (b *Broker) assigned(tp TopicPartition) bool {
	p, ok := b.image.Partition(tp.Topic, tp.Partition)
	return ok && slices.Contains(p.Replicas, b.cfg.ID)
}

// deleteReplica stops the replica of tp and deletes its log: parked
// produces are answered (NOT_LEADER_OR_FOLLOWER), requests in flight to its
// leader are forgotten so their answers are dropped, and a parked fetch
// that waited on it is answered at the next scan (its partition is
// UNKNOWN_TOPIC_OR_PARTITION from now on). A deletion that fails on disk
// halts the broker, as a failed log does.
func (b *Broker) deleteReplica(tp TopicPartition, r *Replica) {
	leader := r.LeaderID()
	err := r.Close()
	for _, o := range r.TakeProduceOutcomes() {
		b.produceDone(o)
	}
	delete(b.parts, tp)
	delete(b.created, tp)
	delete(b.stamped, tp)
	b.rehost()
	b.dropInFlight(leader, tp)
	if err != nil && !errors.Is(err, ErrClosed) {
		b.halted = fmt.Errorf("replica: broker %d halted: closing the deleted partition %s: %w", b.cfg.ID, tp, err)
		return
	}
	if err := b.removePartitionDir(filepath.Join(b.cfg.Dir, tp.String())); err != nil {
		b.halted = fmt.Errorf("replica: broker %d halted: deleting the log of %s: %w", b.cfg.ID, tp, storageError(err))
	}
}

// dropInFlight forgets the fetch or epoch question in flight to leader if
// it names tp, so that a recreated tp never applies an answer meant for
// the deleted one; the next fetch round asks again for the others.
func (b *Broker) dropInFlight(leader int32, tp TopicPartition) {
	corr, ok := b.fetching[leader]
	if !ok {
		return
	}
	names := false
	switch m := b.pending[corr].msg.(type) {
	case *wire.FetchRequest:
		names = slices.ContainsFunc(m.Partitions, func(p wire.FetchPartition) bool { return p.Topic == tp.Topic && p.Partition == tp.Partition })
	case *wire.OffsetsForLeaderEpochRequest:
		names = slices.ContainsFunc(m.Partitions, func(p wire.OffsetsForLeaderEpochPartition) bool {
			return p.Topic == tp.Topic && p.Partition == tp.Partition
		})
	}
	if names {
		delete(b.pending, corr)
		delete(b.fetching, leader)
	}
}

// removePartitionDir deletes a partition directory and everything in it,
// the deletion mark first (durably) and itself last.
func (b *Broker) removePartitionDir(dir string) error {
	f, err := b.fs.OpenFile(filepath.Join(dir, deletingFile), os.O_WRONLY|os.O_CREATE, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // never created, or already gone
	}
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := b.fs.SyncDir(dir); err != nil {
		return err
	}
	return b.finishDeletion(dir)
}

// finishDeletion removes a marked partition directory's files, the mark
// last, then the directory.
func (b *Broker) finishDeletion(dir string) error {
	entries, err := b.fs.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name == deletingFile {
			continue
		}
		if !e.Regular {
			return fmt.Errorf("replica: %s holds a directory %s, which a partition never has", dir, e.Name)
		}
		if err := b.fs.Remove(filepath.Join(dir, e.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := b.fs.Remove(filepath.Join(dir, deletingFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := b.fs.SyncDir(dir); err != nil {
		return err
	}
	if err := b.fs.RemoveDir(dir); err != nil {
		return err
	}
	return b.fs.SyncDir(filepath.Dir(dir))
}

// markedForDeletion reports whether the partition directory dir holds the
// deletion mark.
func (b *Broker) markedForDeletion(dir string) bool {
	f, err := b.fs.OpenFile(filepath.Join(dir, deletingFile), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	_ = f.Close()
	return true
}

// createdFile records, in a partition directory, the
// controller.Topic.CreatedOffset of the topic the log belongs to: Kafka's
// partition.metadata, which holds the topic id for the same reason. A
// broker that starts with the log of a topic deleted and created again
// under its name while it was down tells it from the new topic's by this
// file, and deletes it (the epochs cannot tell them apart: both
// incarnations start at leader epoch 0). A directory without it (written
// before the file existed) is taken to be the topic's.
const createdFile = "partition.created"

// stampCreated writes tp's createdFile durably.
func (b *Broker) stampCreated(tp TopicPartition, created uint64) error {
	dir := filepath.Join(b.cfg.Dir, tp.String())
	f, err := b.fs.OpenFile(filepath.Join(dir, createdFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	data := strconv.AppendUint(nil, created, 10)
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return b.fs.SyncDir(dir)
}

// readCreated returns the CreatedOffset tp's createdFile holds; ok is false
// when there is none (or it cannot be read, which is taken as none).
func (b *Broker) readCreated(tp TopicPartition) (uint64, bool) {
	f, err := b.fs.OpenFile(filepath.Join(b.cfg.Dir, tp.String(), createdFile), os.O_RDONLY, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var buf [20]byte // the digits of a uint64, bounded before reading
	n, err := f.ReadAt(buf[:], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(buf[:n]), 10, 64)
	return v, err == nil
}
