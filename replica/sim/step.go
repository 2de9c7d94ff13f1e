package sim

import (
	"fmt"
	"strconv"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/replica"
)

// Kind is what a step does.
type Kind uint8

// The kinds of step.
const (
	// Produce sends Value with Acks to the leader the controller names, or
	// to broker Broker when it is >= 0 (a client with stale metadata).
	Produce Kind = iota
	// FetchRound has every broker fetch once from each leader it follows.
	FetchRound
	// Consume reads committed records from the leader, from where the
	// simulated consumer left off.
	Consume
	// Advance moves the clock by Ms.
	Advance
	// Crash kills broker Broker; Mode says what its files keep.
	Crash
	// Restart starts broker Broker again, if it is down.
	Restart
	// RestartController reopens the controller from its metadata log.
	RestartController
	// Cut stops messages between two nodes (Node and Other).
	Cut
	// Heal restores every cut link.
	Heal
	// Faults sets every link's faults to Faults.
	Faults
	// DiskFault makes broker Broker's next file operation of kind Op fail.
	DiskFault
	// Elect asks the controller for an election of the partition, unclean
	// if Unclean, preferred (the leadership to the first replica, once it
	// is in the ISR) if Preferred.
	Elect
	// AlterPartitionFaults sets the faults of every AlterPartition request
	// and answer, on every link, to Faults (the zero Faults gives them
	// their links' faults again): answers lost, doubled or late while the
	// metadata flows, so that the partition state a proposal's commit
	// published reaches the leader while the proposal's request is still
	// unanswered, and the answer comes late, twice, or never.
	AlterPartitionFaults
	// The consumer group steps (Config.Groups), each of group member
	// Member; a member waiting for an answer, or paused, does nothing, and
	// one that does not know its coordinator asks for it instead.

	// Join sends a JoinGroup, if the member is not in the group; its
	// answer is followed at once by the SyncGroup, the leader's assigning
	// the partitions range-style, as Kafka's consumer does.
	Join
	// Heartbeat sends a heartbeat now (members heartbeat every 3 s by
	// themselves too).
	Heartbeat
	// Commit commits the next offset of every partition the member owns.
	Commit
	// FetchOffsets reads the group's committed offsets.
	FetchOffsets
	// Leave sends a LeaveGroup and forgets the member id.
	Leave
	// Pause stops the member, heartbeats and all, past its session.
	Pause
	// Reassign moves the partition's replicas (KIP-455): one replica to a
	// broker outside them when there is one, else from three replicas to
	// two, and from two back to three; a reassignment still in flight is
	// cancelled instead.
	Reassign
	kinds // the number of kinds
)

var kindNames = [...]string{"Produce", "FetchRound", "Consume", "Advance", "Crash", "Restart",
	"RestartController", "Cut", "Heal", "Faults", "DiskFault", "Elect", "AlterPartitionFaults",
	"Join", "Heartbeat", "Commit", "FetchOffsets", "Leave", "Pause", "Reassign"}

// String returns the kind's name.
func (k Kind) String() string {
	if k < kinds {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Step is one action of a simulation, with every parameter concrete, so
// that replaying the same steps does the same thing.
type Step struct {
	Kind    Kind               // what the step does; the other fields are its parameters
	Broker  int32              // Produce (-1: the leader), Crash, Restart, DiskFault
	Acks    int16              // Produce
	Value   string             // Produce
	Ms      int64              // Advance
	Mode    vfs.CrashMode      // Crash
	Node    replica.Addr       // Cut
	Other   replica.Addr       // Cut
	Faults  replica.LinkFaults // Faults, AlterPartitionFaults
	Op      vfs.Op             // DiskFault
	Unclean bool               // Elect
	// Offsets makes an Elect one of the group's __consumer_offsets
	// partition (Config.Groups) instead of the simulated partition's.
	Offsets bool
	// Preferred makes an Elect a preferred election (never with Unclean).
	Preferred bool
	// Idempotent makes a Produce the idempotent producer's: it hands over
	// Batches batches (0 is one) of one record, one, then two, valued
	// Value followed by a, b, c...; the producer sends them to the leader
	// as its rules allow.
	Idempotent bool
	Batches    int // how many batches an idempotent Produce hands over (see Idempotent)
	// NewProducer makes an idempotent Produce close the producer first
	// (its records not yet acknowledged fail) and hand the batches to a
	// new one, with a new producer id.
	NewProducer bool
	// Member is the group member of a Join, Heartbeat, Commit,
	// FetchOffsets, Leave or Pause step, 0 to 2.
	Member int
}

// String describes the step on one line, e.g. "Crash broker 2 (LoseUnsynced)".
func (s Step) String() string {
	switch s.Kind {
	case Produce:
		to := "the leader"
		if s.Broker >= 0 {
			to = fmt.Sprintf("broker %d", s.Broker)
		}
		if s.Idempotent {
			from := ""
			if s.NewProducer {
				from = " from a new producer"
			}
			n := fmt.Sprintf("%d batches", s.Batches)
			if s.Batches <= 1 {
				n = "1 batch"
			}
			return fmt.Sprintf("Produce %q idempotently%s, %s, to %s", s.Value, from, n, to)
		}
		return fmt.Sprintf("Produce %q acks=%d to %s", s.Value, s.Acks, to)
	case Advance:
		return fmt.Sprintf("Advance %d ms", s.Ms)
	case Crash:
		return fmt.Sprintf("Crash broker %d (%v)", s.Broker, s.Mode)
	case Restart:
		return fmt.Sprintf("Restart broker %d", s.Broker)
	case Cut:
		return fmt.Sprintf("Cut %v – %v", s.Node, s.Other)
	case Faults, AlterPartitionFaults:
		f := s.Faults
		return fmt.Sprintf("%v drop %.2f dup %.2f delay %d–%d ms", s.Kind, f.DropRate, f.DuplicateRate, f.MinDelayMs, f.MaxDelayMs)
	case DiskFault:
		return fmt.Sprintf("DiskFault broker %d next %v", s.Broker, s.Op)
	case Elect:
		if s.Offsets {
			return fmt.Sprintf("Elect %s unclean=%v", replica.OffsetsTopic, s.Unclean)
		}
		if s.Preferred {
			return "Elect preferred"
		}
		return fmt.Sprintf("Elect unclean=%v", s.Unclean)
	case Join, Heartbeat, Commit, FetchOffsets, Leave, Pause:
		return fmt.Sprintf("%v member %d", s.Kind, s.Member)
	}
	return s.Kind.String()
}

// goString is the step as a Go composite literal, for Script.
func (s Step) goString() string {
	addr := func(a replica.Addr) string {
		switch a.Kind {
		case replica.BrokerAddr:
			return fmt.Sprintf("replica.BrokerAt(%d)", a.ID)
		case replica.ControllerAddr:
			return "replica.ControllerAt()"
		}
		return fmt.Sprintf("replica.ClientAt(%d)", a.ID)
	}
	switch s.Kind {
	case Produce:
		if s.Idempotent {
			return fmt.Sprintf("{Kind: sim.Produce, Broker: %d, Acks: %d, Value: %q, Idempotent: true, Batches: %d, NewProducer: %v}", s.Broker, s.Acks, s.Value, s.Batches, s.NewProducer)
		}
		return fmt.Sprintf("{Kind: sim.Produce, Broker: %d, Acks: %d, Value: %q}", s.Broker, s.Acks, s.Value)
	case Advance:
		return fmt.Sprintf("{Kind: sim.Advance, Ms: %d}", s.Ms)
	case Crash:
		return fmt.Sprintf("{Kind: sim.Crash, Broker: %d, Mode: vfs.%v}", s.Broker, s.Mode)
	case Restart:
		return fmt.Sprintf("{Kind: sim.Restart, Broker: %d}", s.Broker)
	case Cut:
		return fmt.Sprintf("{Kind: sim.Cut, Node: %s, Other: %s}", addr(s.Node), addr(s.Other))
	case Faults, AlterPartitionFaults:
		f := s.Faults
		return fmt.Sprintf("{Kind: sim.%v, Faults: replica.LinkFaults{DropRate: %g, DuplicateRate: %g, MinDelayMs: %d, MaxDelayMs: %d}}",
			s.Kind, f.DropRate, f.DuplicateRate, f.MinDelayMs, f.MaxDelayMs)
	case DiskFault:
		return fmt.Sprintf("{Kind: sim.DiskFault, Broker: %d, Op: vfs.%s}", s.Broker, opConst[s.Op])
	case Elect:
		if s.Offsets {
			return fmt.Sprintf("{Kind: sim.Elect, Unclean: %v, Offsets: true}", s.Unclean)
		}
		if s.Preferred {
			return "{Kind: sim.Elect, Preferred: true}"
		}
		return fmt.Sprintf("{Kind: sim.Elect, Unclean: %v}", s.Unclean)
	case Join, Heartbeat, Commit, FetchOffsets, Leave, Pause:
		return fmt.Sprintf("{Kind: sim.%v, Member: %d}", s.Kind, s.Member)
	}
	return fmt.Sprintf("{Kind: sim.%v}", s.Kind)
}

// opConst names the vfs.Op constants the simulator injects faults with.
var opConst = map[vfs.Op]string{vfs.OpWrite: "OpWrite", vfs.OpSync: "OpSync", vfs.OpSyncDir: "OpSyncDir", vfs.OpRename: "OpRename", vfs.OpTruncate: "OpTruncate"}
