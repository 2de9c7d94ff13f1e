// Package testkit holds what the tests of several kaenlog packages need
// alike and that depends on no kaenlog package: a seeded generator that
// prints its seed when a test fails, and the process's CPU time for
// benchmarks. It is internal: the packages under replica/ (and the nested
// modules rooted there, replica/kafka) import it from their tests only.
//
// The packages outside replica/ (log, wire, isr, epoch) cannot import it,
// Go's internal rule allowing only the tree rooted at replica/, and the
// repository's top level is fixed; they keep their own few lines.
package testkit
