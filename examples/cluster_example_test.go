package examples_test

// One runnable Example per section of the cluster demo.

import (
	"fmt"
	"os"

	"github.com/kaenlog/kaenlog/examples"
)

// clusterSection runs one section of the cluster demo with its defaults.
func clusterSection(run func(*examples.ClusterDemo) error) {
	d, err := examples.NewClusterDemo(examples.DefaultClusterDemoConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := run(d); err != nil {
		fmt.Println(err)
	}
}

// Election starts three brokers and the controller: each broker registers, gets its broker epoch, and is unfenced once caught up with the metadata; the controller creates the topic and elects the preferred replica, and every broker takes its role from the metadata log.
func ExampleClusterDemo_Election() {
	clusterSection(func(d *examples.ClusterDemo) error { return d.Election(os.Stdout) })
	// Output:
	// == Three brokers register, and the controller elects a leader ==
	// broker 1 registered with broker epoch 0, unfenced
	// broker 2 registered with broker epoch 2, unfenced
	// broker 3 registered with broker epoch 4, unfenced
	// topic payments created: replicas [1 2 3], min.insync.replicas 2
	// controller: leader 1, leader epoch 0, partition epoch 0, ISR [1 2 3]
	//   broker 1: leader at leader epoch 0, as the metadata log says
	//   broker 2: follower at leader epoch 0, as the metadata log says
	//   broker 3: follower at leader epoch 0, as the metadata log says
	// nothing above was decided by a broker: the controller wrote it, the brokers read it
}

// AcksAllWaits produces with acks=all: the leader appends at once and parks the answer; the followers copy the record in one fetch round, and the next round moves the high watermark past it and lets the leader answer.
func ExampleClusterDemo_AcksAllWaits() {
	clusterSection(func(d *examples.ClusterDemo) error { return d.AcksAllWaits(os.Stdout) })
	// Output:
	// == acks=all waits for the high watermark ==
	// produce pay-1 with acks=all: the leader appends it (LEO 1) and parks the answer (HW 0)
	// fetch round 1: followers' LEO 1 and 1, leader HW 0: no answer yet
	// fetch round 2: followers' LEO 1 and 1, leader HW 1: answered NONE, offset 0
	// the producer heard NONE only once every ISR member held the record
}

// ISROnTheTimer cuts a follower off and lets the clock run: the leader's ISR check, every lag/2, proposes the removal and the controller commits it; once the follower is back and caught up it is proposed back in.
func ExampleClusterDemo_ISROnTheTimer() {
	clusterSection(func(d *examples.ClusterDemo) error { return d.ISROnTheTimer(os.Stdout) })
	// Output:
	// == The ISR shrinks and grows on the timer, through the controller ==
	// t=0.0s  broker 3 loses its link to leader 1; leader 1, leader epoch 0, partition epoch 0, ISR [1 2 3]
	// t=15.0s  ISR check: leader 1, leader epoch 0, partition epoch 0, ISR [1 2 3]
	// t=30.0s  ISR check: leader 1, leader epoch 0, partition epoch 0, ISR [1 2 3]
	// t=45.0s  ISR check: leader 1, leader epoch 0, partition epoch 1, ISR [1 2]
	// the leader proposed the removal; the controller committed it (partition epoch +1, leader epoch unchanged)
	// t=45.0s  the link is back
	// t=75.5s  broker 3 caught up (LEO 1): proposed back in and committed; leader 1, leader epoch 0, partition epoch 2, ISR [1 2 3]
	// (its fetch sent during the cut was lost: it waited out the request timeout before fetching again)
}

// LeaderCrash kills the leader: its session expires, the controller fences it and elects an ISR member at the next epoch, and the old leader, back after an unclean shutdown, is out of the ISR until it has caught up.
func ExampleClusterDemo_LeaderCrash() {
	clusterSection(func(d *examples.ClusterDemo) error { return d.LeaderCrash(os.Stdout) })
	// Output:
	// == The leader crashes, and the controller elects cleanly ==
	// t=0.0s  pay-1 and pay-2 committed; leader 1, leader epoch 0, partition epoch 0, ISR [1 2 3]
	// t=0.0s  broker 1 is killed
	// t=9.0s  its session expired: fenced; leader 2, leader epoch 1, partition epoch 1, ISR [2 3]
	// t=9.0s  pay-3 committed by the new leader
	// t=9.0s  the new leader holds [pay-1 pay-2 pay-3]
	// t=9.0s  broker 1 restarts after an unclean shutdown; leader 2, leader epoch 1, partition epoch 1, ISR [2 3]
	// t=9.5s  broker 1 caught up [pay-1 pay-2 pay-3] and rejoined; leader 2, leader epoch 1, partition epoch 2, ISR [1 2 3]
}

// FastLeaderChange is KIP-279's leadership change 1 → 2 → 1: the diverging epoch of broker 1's first fetch makes it drop the record broker 2 never had, and every log and epoch cache ends equal.
func ExampleClusterDemo_FastLeaderChange() {
	clusterSection(func(d *examples.ClusterDemo) error { return d.FastLeaderChange(os.Stdout) })
	// Output:
	// == KIP-279: leadership goes 1 → 2 → 1, and the logs converge ==
	// broker 1 leads at epoch 0 and holds [pay-1 pay-2] (pay-2 not yet copied)
	// broker 1 cut off; broker 2 leads at epoch 1 and writes pay-3 at offset 1: [pay-1 pay-3]
	// broker 1 back: a diverging epoch tells it epoch 0 ended at offset 1; it drops pay-2, copies pay-3: [pay-1 pay-3]
	// broker 2 dies; broker 1 leads again at epoch 2; broker 2 comes back and catches up
	//   broker 1: [pay-1 pay-3 pay-4], epochs [{0 0} {1 1} {2 2}]
	//   broker 2: [pay-1 pay-3 pay-4], epochs [{0 0} {1 1} {2 2}]
	//   broker 3: [pay-1 pay-3 pay-4], epochs [{0 0} {1 1} {2 2}]
	// every log and every leader-epoch cache is equal
}
