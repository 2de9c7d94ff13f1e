package main

import (
	"fmt"
	"time"
)

// kgoCooperativeFirstHeartbeat is when a cooperative kgo member sends its
// first heartbeat after an assignment: a join run shorter than that did
// not wait for a heartbeat to learn of a rebalance. The join's time is
// bimodal around it.
const kgoCooperativeFirstHeartbeat = 500 * time.Millisecond

// reportGroups prints the -groups mode's table.
func (b *bench) reportGroups() {
	cfg, g, w := b.cfg, b.groups, b.out
	k, f := g.sides[0], g.sides[1]
	fmt.Fprintf(w, "kgo with its defaults (classic group protocol, cooperative-sticky balancer, heartbeats every 3 s, session 45 s), %d runs a side, interleaved\n", cfg.count)
	fmt.Fprintf(w, "kaenlog: a controller and %d broker processes with Kafka listeners, data on disk; __consumer_offsets 50 partitions, RF 3, min ISR 2, each commit an acks=all write to it; group.initial.rebalance.delay.ms %d\n", brokers, cfg.groups.initialDelayMs)
	if g.zero() != nil {
		fmt.Fprintf(w, "kaenlog, initial delay 0: a second such cluster whose coordinators do not delay a new group's first rebalance, for the join measure only\n")
	}
	fmt.Fprintf(w, "kfake: %d brokers in one child process, offsets in memory, no initial rebalance delay; topics of both: RF 3, min.insync.replicas 2 (kfake replicates nothing)\n", brokers)
	fmt.Fprintf(w, "uptime before: %s\nuptime after:  %s\n\n", b.loadBefore, b.loadAfter)

	mu := func(d time.Duration) string { return us(d) }
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1e3) }
	mc := func(x float64) string { return fmt.Sprintf("%.1f µs", x) }
	mr := func(x float64) string { return rate(x) }
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", x) }
	fmt.Fprintln(w, "| measure | kaenlog, median (min to max) | kfake in its own process | kaenlog / kfake (medians) | floor |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	if cfg.groups.rows["commit"] {
		floor := "-"
		if len(g.floorP50) > 0 {
			floor = fmt.Sprintf("message floor (4 hops, kaenlog's replicated write) %s (kaenlog / it %s); RTT (2 hops, kfake's answer from memory) %s (kfake / it %s)",
				spread(g.floorP50, mu), ratioOf(k.p50, g.floorP50), spread(g.rtt, mu), ratioOf(f.p50, g.rtt))
		}
		fmt.Fprintf(w, "| OffsetCommit (CommitOffsetsSync of one offset, %d a run), p50 | %s | %s | %s | %s |\n", cfg.groups.commits, spread(k.p50, mu), spread(f.p50, mu), ratioOf(k.p50, f.p50), floor)
		floor = "-"
		if len(g.floorP99) > 0 {
			floor = fmt.Sprintf("message floor %s; RTT %s", spread(g.floorP99, mu), spread(g.rttP99, mu))
		}
		fmt.Fprintf(w, "| OffsetCommit, p99 | %s | %s | %s | %s |\n", spread(k.p99, mu), spread(f.p99, mu), ratioOf(k.p99, f.p99), floor)
		fmt.Fprintf(w, "| CPU per OffsetCommit, the brokers together | %s | %s | %s | - |\n", spread(k.commitCPU, mc), spread(f.commitCPU, mc), ratioOf(k.commitCPU, f.commitCPU))
		fmt.Fprintf(w, "| single-record acks=all produce (ProduceSync) to a 1-partition topic, RF 3, min ISR 2, p50: a commit's replication without the coordinator | %s | %s | %s | - |\n", spread(k.prodP50, mu), spread(f.prodP50, mu), ratioOf(k.prodP50, f.prodP50))
		fmt.Fprintf(w, "| CPU per such produce, the brokers together | %s | %s | %s | - |\n", spread(k.prodCPU, mc), spread(f.prodCPU, mc), ratioOf(k.prodCPU, f.prodCPU))
		fmt.Fprintf(w, "| OffsetCommit p50 / produce p50 | %s | %s | - | - |\n", ratioOf(k.p50, k.prodP50), ratioOf(f.p50, f.prodP50))
		fmt.Fprintf(w, "| the brokers' CPU with no client request, %% of a core (%v before each commit run) | %s | %s | %s | - |\n", idleWindow, spread(k.idleCPU, pct), spread(f.idleCPU, pct), ratioOf(k.idleCPU, f.idleCPU))
	}
	if cfg.groups.rows["join"] {
		// Kafka's InitialDelayedJoin waits the delay again while members
		// keep joining: members started at once all join in the first
		// delay, so the first rebalance completes after two.
		floor := fmt.Sprintf("kaenlog: the initial rebalance delay, waited twice (members joined during the first), %d ms; kfake: none", 2*cfg.groups.initialDelayMs)
		switch {
		case cfg.groups.initialDelayMs == 0:
			floor = "no initial rebalance delay on either side (-group-initial-delay-ms 0)"
		case cfg.groups.members == 1:
			floor = fmt.Sprintf("kaenlog: the initial rebalance delay, %d ms; kfake: none", cfg.groups.initialDelayMs)
		}
		fmt.Fprintf(w, "| %d members started at once to a stable group | %s | %s | %s | %s |\n", cfg.groups.members, spread(k.join, ms), spread(f.join, ms), ratioOf(k.join, f.join), floor)
		if z := g.zero(); z != nil {
			fmt.Fprintf(w, "| the same, kaenlog's brokers with group.initial.rebalance.delay.ms 0 (a cluster of their own, as kfake) | %s | %s | %s | no delay on either side |\n", spread(z.join, ms), spread(f.join, ms), ratioOf(z.join, f.join))
		}
	}
	if cfg.groups.rows["chain"] {
		floor := "-"
		if len(g.tfloor) > 0 {
			floor = fmt.Sprintf("throughput floor for 3 writes of each record %s (kaenlog / it %s)", spread(g.tfloor, mr), ratioOf(k.chain, g.tfloor))
		}
		fmt.Fprintf(w, "| chain of 2 groups (t0 → A → t1 → B → t2), %d records of %d bytes, records/s | %s | %s | %s | %s |\n", cfg.groups.chainRecords, cfg.recordBytes, spread(k.chain, mr), spread(f.chain, mr), ratioOf(k.chain, f.chain), floor)
		fmt.Fprintf(w, "| the chain's source: t0's produce alone (while the chain ran), records/s | %s | %s | %s | - |\n", spread(k.source, mr), spread(f.source, mr), ratioOf(k.source, f.source))
	}
	b.reportOwnClient()
	fmt.Fprintln(w, "\nEvery run, in order:")
	for _, s := range g.sides {
		if cfg.groups.rows["commit"] && !s.joinOnly {
			fmt.Fprintf(w, "    %s commit p50: %s; p99: %s; brokers' CPU µs a commit: %s; idle: %s %% of a core\n", s.name, durs(s.p50), durs(s.p99), floats(s.commitCPU, "%.1f"), floats(s.idleCPU, "%.1f"))
			fmt.Fprintf(w, "    %s produce p50: %s; brokers' CPU µs a produce: %s\n", s.name, durs(s.prodP50), floats(s.prodCPU, "%.1f"))
		}
		if cfg.groups.rows["join"] {
			var gens []float64
			for _, x := range s.joinGen {
				gens = append(gens, float64(x))
			}
			var joins []string
			for _, d := range s.join {
				joins = append(joins, ms(d))
			}
			quick, hb, who := 0, kgoCooperativeFirstHeartbeat, "kgo's first cooperative heartbeat"
			if s.own != nil {
				hb, who = ownFirstHeartbeat, "the GroupConsumer's first heartbeat"
			}
			for _, d := range s.join {
				if d < hb {
					quick++
				}
			}
			fmt.Fprintf(w, "    %s join: %v; stable in generation %s; %d of %d runs stable before %s (%v after an assignment)\n", s.name, joins, floats(gens, "%.0f"), quick, len(s.join), who, hb)
		}
		if cfg.groups.rows["chain"] && !s.joinOnly {
			var c, d []float64
			for i := range s.chainCmt {
				c, d = append(c, float64(s.chainCmt[i])), append(d, float64(s.dups[i]))
			}
			fmt.Fprintf(w, "    %s chain: %s (source %s); the members' commits: %s; records seen twice at the end: %s\n", s.name, rates(s.chain), rates(s.source), floats(c, "%.0f"), floats(d, "%.0f"))
		}
	}
	if len(g.floorP50) > 0 {
		fmt.Fprintf(w, "    message floor p50: %s; p99: %s\n", durs(g.floorP50), durs(g.floorP99))
		fmt.Fprintf(w, "    RTT p50: %s; p99: %s\n", durs(g.rtt), durs(g.rttP99))
	}
	if len(g.tfloor) > 0 {
		fmt.Fprintf(w, "    throughput floor, 3 writes a record: %s\n", rates(g.tfloor))
	}
	if len(b.profiles) > 0 {
		fmt.Fprintln(w, "\nCPU profiles (a commit run against kaenlog before the counted ones, not counted; \"leader\" is the group's coordinator):")
		for _, p := range b.profiles {
			fmt.Fprintf(w, "    %s: %s\n", p.who, p.path)
		}
	}
}
