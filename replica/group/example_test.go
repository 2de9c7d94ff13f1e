package group_test

import (
	"fmt"

	"github.com/kaenlog/kaenlog/replica/group"
)

// A host drives the coordinator: it feeds requests in, appends the writes
// to its __consumer_offsets partition, reports the high watermark, and
// sends the answers Ready releases.
func Example() {
	c := group.New(group.DefaultConfig())
	c.BeginLoad()
	c.Loaded(0) // an empty partition

	var log []group.Record
	deliver := func() {
		for {
			r := c.Ready()
			if len(r.Writes) == 0 && len(r.Responses) == 0 {
				return
			}
			for _, w := range r.Writes {
				log = append(log, w.Records...)
				c.Appended(w.Seq, uint64(len(log)-1))
			}
			c.Committed(uint64(len(log))) // acks=all: the followers caught up
			for _, a := range r.Responses {
				switch a := a.(type) {
				case group.JoinGroupResponse:
					fmt.Println("join:", a.Err, a.Generation, a.Leader == a.MemberID)
					if a.Err == nil {
						c.SyncGroup(0, group.SyncGroupRequest{Ref: 2, Group: "g", Generation: a.Generation, MemberID: a.MemberID,
							Assignments: []group.Assignment{{MemberID: a.MemberID, Assignment: []byte("orders-0")}}})
					}
				case group.SyncGroupResponse:
					fmt.Printf("sync: %v %s\n", a.Err, a.Assignment)
				}
			}
		}
	}
	c.JoinGroup(0, group.JoinGroupRequest{Ref: 1, Group: "g", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 30000,
		ProtocolType: "consumer", Protocols: []group.Protocol{{Name: "range"}}, ClientID: "app"})
	deliver()
	if d, ok := c.NextDeadlineMs(); ok {
		c.Tick(d) // group.initial.rebalance.delay.ms passes
	}
	deliver()
	fmt.Println(c.DescribeGroups([]string{"g"})[0].State)
	// Output:
	// join: <nil> 1 true
	// sync: <nil> orders-0
	// Stable
}
