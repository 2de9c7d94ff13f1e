// Command elect asks the controller to elect a leader for one partition
// (Kafka's kafka-leader-election.sh): the operator's way back when a
// partition has no leader and none comes by itself — after every replica
// in its ISR lost power together, each restarts as an unclean shutdown
// and KIP-966 keeps it out of the ISR and ELR (README, "Durability").
//
//	go run ./examples/elect -controller 127.0.0.1:9093 -topic orders -partition 0 -unclean
//
// Without -unclean only a replica in the ISR or ELR may be elected. With
// it the controller takes the first live replica in assignment order, and
// says that committed records may be lost: bring up the brokers that were
// in the ISR first, and keep the others down until the election is done.
//
// With -preferred it moves the leadership back to the partition's
// preferred replica, the first of its assignment, once that replica is in
// the ISR again (Kafka's --election-type PREFERRED); the controller also
// does this by itself, at its periodic check 5 minutes after the
// leadership moved away. "the preferred replica already
// leads" exits 0.
//
// Flags: -controller, -topic, -partition, -unclean, -preferred; -h lists them. An
// invalid flag or value exits with status 2 after a usage line; a refusal
// or an unreachable controller exits with status 1.
package main
