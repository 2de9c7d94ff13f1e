//go:build adminapis

package main

import "testing"

// prepareTopic does nothing: the first produce creates the topic
// (autocreate.go), with replication factor 3.
func prepareTopic(t *testing.T, log, topic string) {}
