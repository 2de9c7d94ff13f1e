package replica

import (
	"bytes"
	"io"
)

// Link is the connection between a follower and its leader. Each end is a
// byte stream: whatever frames one end writes, the other end reads, in
// order. The replica layer speaks only wire frames over it, so a TCP
// connection (a net.Conn at each end) can stand where MemLink stands.
type Link interface {
	// FollowerEnd is where the follower writes requests and reads responses.
	FollowerEnd() io.ReadWriter
	// LeaderEnd is where the leader reads requests and writes responses.
	LeaderEnd() io.ReadWriter
}

// MemLink is a Link made of two in-memory byte buffers, one per direction:
// the chapter's "real wire" between two brokers in one process. It is not
// safe for concurrent use; the Cluster drives both ends from one goroutine,
// which is what makes every run print the same bytes.
type MemLink struct {
	toLeader, toFollower bytes.Buffer
	follower, leader     memEnd
}

// NewMemLink returns an empty link.
func NewMemLink() *MemLink {
	l := &MemLink{}
	l.follower = memEnd{read: &l.toFollower, write: &l.toLeader}
	l.leader = memEnd{read: &l.toLeader, write: &l.toFollower}
	return l
}

// FollowerEnd implements Link.
func (l *MemLink) FollowerEnd() io.ReadWriter { return &l.follower }

// LeaderEnd implements Link.
func (l *MemLink) LeaderEnd() io.ReadWriter { return &l.leader }

// Pending reports how many bytes are written but not yet read, in each
// direction. After a complete exchange both are zero.
func (l *MemLink) Pending() (toLeader, toFollower int) {
	return l.toLeader.Len(), l.toFollower.Len()
}

type memEnd struct{ read, write *bytes.Buffer }

func (e *memEnd) Read(p []byte) (int, error)  { return e.read.Read(p) }
func (e *memEnd) Write(p []byte) (int, error) { return e.write.Write(p) }
