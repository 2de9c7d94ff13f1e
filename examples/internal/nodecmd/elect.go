package nodecmd

import (
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/kaenlog/kaenlog/wire"
)

// electFlags are the elect command's flags, after parsing.
type electFlags struct {
	Controller string
	Topic      string
	Partition  int64
	Unclean    bool
	Preferred  bool
}

// electFlagSet declares the elect command's flags into f.
func electFlagSet(f *electFlags) *flag.FlagSet {
	fs := flag.NewFlagSet("elect", flag.ContinueOnError)
	fs.StringVar(&f.Controller, "controller", "", "the controller's host:port (required)")
	fs.StringVar(&f.Topic, "topic", "", "the partition's topic (required)")
	fs.Int64Var(&f.Partition, "partition", 0, "the partition index, 0 to 2147483647")
	fs.BoolVar(&f.Unclean, "unclean", false, "allow a replica outside the ISR and ELR: committed records may be lost")
	fs.BoolVar(&f.Preferred, "preferred", false, "move the leadership to the preferred replica, the first of the assignment, if it is in the ISR")
	return fs
}

func (f *electFlags) validate() error {
	if err := checkHostPort("controller", f.Controller, false); err != nil {
		return err
	}
	if f.Topic == "" {
		return usageError("-topic is required")
	}
	if f.Unclean && f.Preferred {
		return usageError("-unclean and -preferred exclude each other")
	}
	return checkRange("partition", f.Partition, 0, math.MaxInt32)
}

// RunElect runs the elect command: one ElectLeaders request to the
// controller, for a partition without a leader (after its ISR lost power
// together, say), or, with -preferred, to give the leadership back to the
// partition's preferred replica. It prints the leader and epoch, and whether records may
// have been lost; a refusal prints its error and returns 1.
func RunElect(args []string, stdout, stderr io.Writer) int {
	var f electFlags
	fs := electFlagSet(&f)
	if status, ok := parse(fs, args, stderr); !ok {
		return status
	}
	if err := f.validate(); err != nil {
		return refuse(fs, stderr, err)
	}
	m, err := Call(f.Controller, &wire.ElectLeadersRequest{CorrelationID: 1, Topic: f.Topic, Partition: int32(f.Partition), Unclean: f.Unclean, Preferred: f.Preferred}, CallTimeout)
	if err != nil {
		fmt.Fprintf(stderr, "elect: %v\n", err)
		return 1
	}
	resp := m.(*wire.ElectLeadersResponse)
	if resp.ErrorCode == wire.CodeElectionNotNeeded {
		// As Kafka's kafka-leader-election: not a failure.
		fmt.Fprintf(stdout, "%s-%d: leader %d, leader epoch %d; the preferred replica already leads\n", f.Topic, f.Partition, resp.Leader, resp.LeaderEpoch)
		return 0
	}
	if resp.ErrorCode != wire.CodeNone {
		fmt.Fprintf(stderr, "elect: %s-%d: %v\n", f.Topic, f.Partition, resp.ErrorCode.Err())
		return 1
	}
	fmt.Fprintf(stdout, "%s-%d: leader %d, leader epoch %d", f.Topic, f.Partition, resp.Leader, resp.LeaderEpoch)
	if resp.DataMayBeLost {
		fmt.Fprint(stdout, "; elected uncleanly: committed records may be lost")
	}
	fmt.Fprintln(stdout)
	return 0
}
