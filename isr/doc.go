// Package isr is the leader's in-sync replica bookkeeping for one partition:
// the high watermark proposal, the ISR's two removal paths, readmission, and
// the acks=all gate. It is pure and clock-free: no function reads a clock;
// time arrives as nowMs, and only State.ShrinkISR compares it with a cutoff.
//
// # The rules, in the chapter's terms
//
// Exclusive high watermark. A log end offset (LEO) is the offset of the NEXT
// record to be written; an empty log has LEO 0. The high watermark (HW) is
// the smallest LEO among the ISR and is exclusive: records at offsets < HW are
// committed. HW 0 means nothing is committed, whatever is on disk.
//
// Maximal ISR. AdvanceHW starts at the leader's LEO and takes the minimum
// over the followers in the maximal ISR and the caught-up followers outside
// it (ReplicaLEO.CaughtUp); it proposes nothing while the ISR is smaller
// than min.insync.replicas. It proposes, it does not set: it has no access
// to the current HW, so keeping the HW monotonic is the caller's job (the
// replica layer accepts only a larger proposal), as Kafka's
// maybeIncrementLeaderHW leaves it to maybeIncrementHighWatermark.
// State.ProposeHW is AdvanceHW over a State, and the replica layer's leader
// runs it: there is no other high-watermark rule.
//
// Proposed, then committed. A leader that answers to a controller never
// changes its ISR itself (alterpartition.go, Kafka's AlterPartition): the
// time rule (ProposeShrink) and the joining rule (ProposeExpansion) propose a
// new ISR, one proposal in flight at a time, and Commit applies the ISR the
// controller committed. A follower being added counts at once — it joins the
// maximal ISR, which holds the high watermark back, the safe direction — and
// one being removed counts only once committed. State.UnderMinISR, which
// freezes the high watermark (KIP-966) and refuses acks=all, reads the
// committed ISR; the acks=all gate reads the maximal one. min.insync.replicas
// is capped at the replication factor (EffectiveMinISR), as in Kafka, by
// the leader and the controller alike.
// ShrinkISR, Readmit and RemoveLostSession apply their rule at once: the
// chapter's single-process leader, which has no controller to ask. A
// partition state the controller publishes is taken as Kafka's makeLeader
// takes it: NewState for a broker that starts leading (every follower
// unknown), State.Reelect for one re-elected at a new leader epoch (its
// followers' LEOs kept), State.UpdateAssignment at the same leader epoch
// (the replicas and the ISR, ending any proposal in flight).
//
// One-round lag. A follower's fetch offset is its LEO, and the leader learns
// it from the fetch REQUEST (State.Observe); the HW computed from it travels
// back in the RESPONSE that also carries newer records. So a follower always
// holds records it does not yet know are committed, and learns it one round
// later.
//
// Two judges. A follower leaves the ISR by either of two unrelated rules:
// the leader's time rule (State.ShrinkISR: not caught up for longer than
// replica.lag.time.max.ms, default 30000) because the leader sees every
// fetch, and the controller's session rule (WithoutLostSession, which
// package replica/controller applies when it fences a broker, and
// State.RemoveLostSession on a State) because the controller holds the
// session. It comes back by one path only, the
// controller's (State.Readmit), when its LEO has reached both the HW and the
// start of the leader's current epoch. Time never readmits. The leader is
// always a member of its own ISR; no call removes it.
//
// Before versus after append. acks=all is refused BEFORE append when the ISR
// is under min.insync.replicas (State.UnderMinISR; Kafka error 19,
// NOT_ENOUGH_REPLICAS). A request that was appended waits on Gate.Verdict:
// NotYet until the HW passes its records; then Committed, or
// NotEnoughReplicasAfterAppend (Kafka error 20) if the ISR shrank meanwhile.
// Both are retriable. The wire error codes live in package wire, not here.
//
// # Where Kafka 4.0 differs
//
//   - The chapter's advance_hw counts only the maximal ISR. AdvanceHW also
//     counts, as Kafka's maybeIncrementLeaderHW does, a follower outside it
//     that is caught up (within replica.lag.time.max.ms) and ISR-eligible
//     (ReplicaLEO.CaughtUp), so that a busy leader's HW does not run ahead
//     of a follower about to rejoin. With CaughtUp unset it is the
//     chapter's rule.
//   - Kafka keeps a follower in the ISR when its LEO equals the leader's LEO,
//     whatever the time (Replica.isCaughtUp). kaenlog's ShrinkISR uses time
//     only, as the chapter does: a follower that stops fetching is removed by
//     the leader even while the leader is idle. Observe marks a follower at
//     the leader's LEO caught up at every fetch, so fetching followers are
//     unaffected.
//   - In Kafka the controller commits ISR changes in a metadata log
//     replicated by KRaft; kaenlog's controller is a single node standing in
//     for that quorum (package replica/controller).
package isr
