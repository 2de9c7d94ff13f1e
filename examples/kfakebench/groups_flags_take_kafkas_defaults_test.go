package main

import (
	"io"
	"testing"
)

// TestTheGroupsModeRunsEveryMeasureWithKafkasDefaultsUnlessToldOtherwise:
// -groups selects the consumer-group comparison with every measure, 5000
// commits, 10 members, a 100,000-record chain and Kafka's 3000 ms initial
// rebalance delay, unless its flags say otherwise.
func TestTheGroupsModeRunsEveryMeasureWithKafkasDefaultsUnlessToldOtherwise(t *testing.T) {
	c, status := parseFlags([]string{"-groups"}, io.Discard)
	if c == nil {
		t.Fatalf("parseFlags(-groups): status %d", status)
	}
	g := c.groups
	if !g.on || g.commits != 5000 || g.members != 10 || g.chainRecords != 100_000 || g.initialDelayMs != 3000 {
		t.Errorf("-groups: %+v; want on, 5000 commits, 10 members, 100000 chain records, 3000 ms", g)
	}
	for _, r := range allGroupRows {
		if !g.rows[r] {
			t.Errorf("-groups: measure %s off, want every measure", r)
		}
	}
	c, _ = parseFlags([]string{"-groups", "-group-rows", "join", "-group-chain-records", "1000000", "-group-initial-delay-ms", "0"}, io.Discard)
	if c == nil || !c.groups.rows["join"] || c.groups.rows["commit"] || c.groups.rows["chain"] || c.groups.chainRecords != 1_000_000 || c.groups.initialDelayMs != 0 {
		t.Errorf("-group-rows join -group-chain-records 1000000 -group-initial-delay-ms 0: not taken: %+v", c)
	}
	if c, _ := parseFlags(nil, io.Discard); c == nil || c.groups.on {
		t.Errorf("no flags: groups mode on, want the rows")
	}
}

// TestTheGroupsModeRefusesInvalidValuesWithStatus2: the mode's invalid
// values exit with status 2 before anything starts.
func TestTheGroupsModeRefusesInvalidValuesWithStatus2(t *testing.T) {
	for _, args := range [][]string{
		{"-groups", "-group-rows", "rebalance"},
		{"-groups", "-group-rows", ","},
		{"-groups", "-group-commits", "0"},
		{"-groups", "-group-chain-records", "0"},
		{"-groups", "-group-members", "0"},
		{"-groups", "-group-members", "1001"},
		{"-groups", "-group-initial-delay-ms", "-1"},
	} {
		if c, status := parseFlags(args, io.Discard); c != nil || status != 2 {
			t.Errorf("parseFlags(%q) = %v, %d; want nil, 2", args, c, status)
		}
	}
}
