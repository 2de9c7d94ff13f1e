//go:build !adminapis

package main

import (
	"regexp"
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/nodecmd"
	"github.com/kaenlog/kaenlog/wire"
)

// prepareTopic creates topic through the controller (its address read
// from the cluster's log), with what auto-creation would give it: the
// brokers do not create topics yet (autocreate_pending.go).
func prepareTopic(t *testing.T, log, topic string) {
	t.Helper()
	m := regexp.MustCompile(`controller listening on ([0-9.]+:[0-9]+),`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no controller address in the log:\n%s", log)
	}
	resp, err := nodecmd.Call(m[1], &wire.CreateTopicsRequest{CorrelationID: 1, Name: topic, Partitions: 1, ReplicationFactor: 3, MinISR: 2}, nodecmd.CallTimeout)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.(*wire.CreateTopicsResponse); ct.ErrorCode != wire.CodeNone {
		t.Fatalf("create %s: %v: %s", topic, ct.ErrorCode.Err(), ct.ErrorMessage)
	}
}
