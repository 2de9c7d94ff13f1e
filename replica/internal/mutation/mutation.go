// Package mutation holds the unsafe forms of the group coordinator's
// rules, which the simulator (replica/sim) switches on to prove that its
// invariants catch them. It is internal: only the packages under replica/
// can import it, so no user of kaenlog can switch a rule off, and a
// broker configured through its exported API always runs the rules as
// they are.
package mutation

// Rules are the unsafe forms a broker can run with; the zero value runs
// none.
type Rules struct {
	// CommitBeforeReplicated answers an OffsetCommit once the
	// coordinator's write is in its leader's log, before the high
	// watermark has passed it (acks=1 for the coordinator's writes): a
	// commit acknowledged this way dies with its leader.
	CommitBeforeReplicated bool
	// LoadBeforeHighWatermark starts serving a newly loaded coordinator as
	// soon as its partition was read to its end, without waiting for the
	// high watermark to reach what was read: it serves offsets of the last
	// leader's uncommitted tail, which the next leader may not have.
	LoadBeforeHighWatermark bool
}

// Set switches rules on in cfg, a *replica.BrokerConfig. Package replica
// installs it when it is initialised: this package cannot name replica's
// types, which would be an import cycle.
var Set func(cfg any, rules Rules)
