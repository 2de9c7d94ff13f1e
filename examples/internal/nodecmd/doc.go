// Package nodecmd is the code of the commands examples/controller,
// examples/broker and examples/cluster: their flags, their validation and
// their lives as processes — a node hosted by a
// [github.com/kaenlog/kaenlog/replica/server.Host] on the wall clock, a
// clean shutdown on SIGTERM or SIGINT, a hard exit on a second signal.
//
// Each Run function takes the command's arguments, where to print, and
// the signals that stop it, and returns the process's exit status: 0 after
// a clean stop, 1 when the node could not start or failed, 2 for an
// invalid flag or value (after a usage line on stderr).
//
// What the commands print on stdout is one line per fact, with a stable
// beginning a program can wait for (examples/cluster does, and the tests):
//
//	controller listening on 127.0.0.1:39251, metadata log in DIR
//	broker 1 simulating power loss: unsynced data lives in this process until fsync; a kill -9 loses it
//	broker 1 listening on 127.0.0.1:40111 (advertised 127.0.0.1:40111), data in DIR
//	broker 1 ready: registered at broker epoch 3, unfenced
//	broker 1 stopped cleanly
package nodecmd
