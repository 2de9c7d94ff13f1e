// Package metaprops stamps a data directory with whose it is, as Kafka's
// meta.properties: the cluster id, the node id, and the role. A broker's
// data directory and a controller's metadata directory are stamped at their
// first start ([Ensure]); a start whose identity disagrees with its
// directory's stamp is refused and the error names both, so that a broker
// started with -id 9 on broker 3's directory, or a controller pointed at a
// broker's directory, does not run on data that is not its own.
//
// The file is Kafka's format, version 1:
//
//	#Written by kaenlog: who this directory belongs to. Do not edit.
//	version=1
//	cluster.id=MkU3OEVBNTcwNTJENDM2Qk
//	node.id=3
//	process.roles=broker
//
// Kafka keeps process.roles in its configuration; kaenlog, with no
// configuration file, stamps it here: a directory is a broker's or a
// controller's, never both. A broker's stamp may lack cluster.id until the
// broker learns its cluster at its first registration (Kafka's directories
// get theirs from kafka-storage format before the first start).
//
// A stamp is replaced atomically ([Write]: a temporary file, fsync, rename,
// fsync of the directory, all through the [vfs.FS] seam) and read bounded
// by [MaxFileBytes] ([Read]). [Parse] is a pure decoder; [Properties.Append]
// its encoder.
//
// A directory without a stamp is stamped with the identity it is opened
// with, whatever it holds: directories written before stamps existed are
// adopted, unchecked.
package metaprops
