// Command replica-demo runs the chapter's demo: two brokers in one process
// replicating one partition by fetch, section by section, printing the
// chapter's run output.
//
//	go run ./examples/replica-demo --rounds 4 --min-isr 2 --now-ms 1700000000000
//
// The flags change what runs; every number printed is computed. --data DIR
// keeps the brokers' directories under DIR for inspection (by default they go
// to a temporary directory removed at exit). Invalid flags exit with status 2;
// a section whose claim the run did not bear out exits with status 1.
package main
