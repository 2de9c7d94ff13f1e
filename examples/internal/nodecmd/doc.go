// Package nodecmd is the code of the commands examples/controller,
// examples/broker and examples/cluster (and of examples/kafkacluster's
// nodes, whose brokers add a Kafka listener: RunBrokerWithKafka): their flags,
// the node processes of the two cluster commands (Nodes), their validation and
// their lives as processes — a node hosted by a
// [github.com/kaenlog/kaenlog/replica/server.Host] on the wall clock, a
// clean shutdown on SIGTERM or SIGINT, a hard exit on a second signal.
//
// Each Run function takes the command's arguments, where to print, and
// the signals that stop it, and returns the process's exit status: 0 after
// a clean stop, 1 when the node could not start or failed, 2 for an
// invalid flag or value (after a usage line on stderr).
//
// What goes to stderr are log records (log/slog; -log-level and
// -log-format text or json), each naming its node: ERROR for what made
// the node fail, WARN for refusals and stops cut short, INFO for its
// connections' events. What the commands print on stdout is one line per
// fact, with a stable beginning a program can wait for (examples/cluster
// does, and the tests):
//
//	controller listening on 127.0.0.1:39251, metadata log in DIR, cluster MkU3OEVBNTcwNTJENDM2Qk
//	broker 1 simulating power loss: unsynced data lives in this process until fsync; a kill -9 loses it
//	broker 1 Kafka listener on 127.0.0.1:40112 (RunBrokerWithKafka only)
//	broker 1 metrics on http://127.0.0.1:40113/metrics (with -metrics-listen)
//	broker 1 listening on 127.0.0.1:40111 (advertised 127.0.0.1:40111), data in DIR
//	broker 1 ready: registered at broker epoch 3, unfenced, cluster MkU3OEVBNTcwNTJENDM2Qk
//	broker 1 stopped cleanly
//
// # Whose a directory is
//
// Every directory is stamped at its first start (package
// [github.com/kaenlog/kaenlog/replica/metaprops]): the controller's with
// its -id (default 0) and the cluster id, the broker's with its -id and,
// from its first registration on, the controller's cluster id. Where the
// cluster id comes from, in order: -cluster-id; the id already stamped in
// -dir; for a new controller directory, a new random one (Kafka's
// kafka-storage random-uuid form), printed on the controller's listening
// line. So a cluster needs no format step: start the controller, then
// the brokers, and each learns and keeps its cluster. A start whose
// -id, role or -cluster-id disagrees with the stamp exits with status 1,
// naming both (-id 9 on broker 3's directory; a controller on a broker's
// directory); a broker whose stamped cluster is not the controller's is
// refused by it (INCONSISTENT_CLUSTER_ID) and halts with status 1.
//
// # One broker id, one broker
//
// The controller refuses a registration for an id whose session is live
// under another incarnation (DUPLICATE_BROKER_REGISTRATION; the rule is
// [github.com/kaenlog/kaenlog/replica/controller.Controller.RegisterBroker]'s).
// The broker command then logs the refusal on stderr, at every refusal
//
//	time=... level=WARN msg="registration refused" node="broker 3" err="replica: broker 3: the controller refused the registration: another incarnation of broker 3 has a live session (...); trying again in 400 ms: ..."
//
// and asks again with a backoff (100 ms, doubling, at most half the
// session timeout), serving nothing and never touching the live broker.
// It retries rather than exits because the same refusal meets a broker
// restarted after a kill -9 until its previous process's session expires;
// a true duplicate keeps being refused until it is stopped.
package nodecmd
