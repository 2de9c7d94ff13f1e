package examples

import (
	"fmt"
	"io"
	"slices"

	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The epoch sections: KIP-101 scenario 1 with the old rule and the new one,
// and the epoch vector's "<=" lookup.

// scenario is the state KIP-101 scenario 1 starts from: m1 committed and
// known to be, m2 on both replicas and not known to be committed by the
// follower.
type scenario struct {
	c *replica.ChapterCluster
	// leaderLEO, leaderHW, followerLEO, followerHW are the state before the
	// follower restarts.
	leaderLEO, leaderHW, followerLEO, followerHW uint64
	// written is every record value the leader held before anything failed.
	written []string
	// uncertain is the value of the first record the follower holds but
	// does not know is committed.
	uncertain string
}

// kip101Scenario drives the three fetch rounds of the scenario on a fresh
// cluster: produce m1, fetch twice (the follower learns m1 is committed),
// produce m2, fetch once (it holds m2, not knowing).
func (d *Demo) kip101Scenario(name string) (*scenario, error) {
	c, err := d.openCluster(name)
	if err != nil {
		return nil, err
	}
	now := d.cfg.NowMs
	steps := []func() error{
		func() error { return produce(c, 1, now) },
		func() error { _, err := c.FetchOnce(now); return err },
		func() error { _, err := c.FetchOnce(now); return err },
		func() error { return produce(c, 2, now) },
		func() error { _, err := c.FetchOnce(now); return err },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, closeWith(c, err)
		}
	}
	s := &scenario{
		c:           c,
		leaderLEO:   c.Leader().LEO(),
		leaderHW:    c.Leader().HighWatermark(),
		followerLEO: c.Follower().LEO(),
		followerHW:  c.Follower().HighWatermark(),
	}
	if s.written, err = values(c.Leader().Log()); err != nil {
		return nil, closeWith(c, err)
	}
	held, err := values(c.Follower().Log())
	if err != nil {
		return nil, closeWith(c, err)
	}
	if err := claim(s.followerHW < s.followerLEO && int(s.followerLEO) == len(held),
		"the follower should hold a record above its HW: LEO %d, HW %d", s.followerLEO, s.followerHW); err != nil {
		return nil, closeWith(c, err)
	}
	s.uncertain = held[s.followerHW]
	return s, nil
}

func produce(c *replica.ChapterCluster, n uint64, nowMs int64) error {
	_, _, err := c.Produce(n, wire.AcksLeader, nowMs)
	return err
}

func closeWith(c *replica.ChapterCluster, err error) error {
	c.Close()
	return err
}

// values reads every record value in l, in offset order.
func values(l *log.Log) ([]string, error) {
	buf, err := l.Read(nil, l.StartOffset(), 1<<30, log.IsolationLogEnd)
	if err != nil {
		return nil, err
	}
	batches, err := log.DecodeBatches(buf)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, b := range batches {
		for _, r := range b.Records {
			out = append(out, string(r.Value))
		}
	}
	return out, nil
}

// failOverAndCount crashes the leader, elects the follower at the next epoch,
// lets the old leader rejoin by rule and catch up, and counts the records
// the leader had written that the new leader's log no longer holds.
func (d *Demo) failOverAndCount(s *scenario, rule replica.TruncationRule) (newEpoch int32, lost int, err error) {
	c, now := s.c, d.cfg.NowMs
	if err := c.FailOver(rule, now); err != nil {
		return 0, 0, err
	}
	newEpoch = c.Leader().LeaderEpoch()
	for range 2 {
		if _, err := c.FetchOnce(now); err != nil {
			return 0, 0, err
		}
	}
	survived, err := values(c.Leader().Log())
	if err != nil {
		return 0, 0, err
	}
	followerHas, err := values(c.Follower().Log())
	if err != nil {
		return 0, 0, err
	}
	if err := claim(slices.Equal(survived, followerHas), "after the failover both replicas should hold the same log: %q vs %q", survived, followerHas); err != nil {
		return 0, 0, err
	}
	for _, v := range s.written {
		if !slices.Contains(survived, v) {
			lost++
		}
	}
	return newEpoch, lost, nil
}

// HighWatermarkTruncation is KIP-101 scenario 1 under the old rule: the
// follower restarts and cuts its log to its own high watermark, the leader
// then fails, and a record is gone for good although every broker followed
// its rules.
func (d *Demo) HighWatermarkTruncation(w io.Writer) error {
	s, err := d.kip101Scenario("kip101-high-watermark")
	if err != nil {
		return err
	}
	defer s.c.Close()
	restart, err := s.c.RestartFollower(replica.TruncateToHighWatermark)
	if err != nil {
		return err
	}
	if err := claim(restart.LEOAfter == s.followerHW, "the old rule should cut the follower to its HW %d, LEO is %d", s.followerHW, restart.LEOAfter); err != nil {
		return err
	}
	epoch, lost, err := d.failOverAndCount(s, replica.TruncateToHighWatermark)
	if err != nil {
		return err
	}
	if err := claim(lost > 0, "the old rule should lose a record, lost %d", lost); err != nil {
		return err
	}
	var p printer
	p.line("== KIP-101 สถานการณ์ที่ 1 · ตัดถึง high watermark แล้วข้อมูลหาย ==")
	p.line("leader มี LEO %d · HW %d", s.leaderLEO, s.leaderHW)
	p.line("ผู้ตามมี LEO %d · HW ของตัวเอง %d", s.followerLEO, s.followerHW)
	p.line("ผู้ตามถือ %s ไว้แล้ว แต่ยังไม่รู้ว่ามัน committed หรือยัง", s.uncertain)
	p.line("ผู้ตาม restart แล้วตัด log ถึง HW ของตัวเอง → LEO เหลือ %d", restart.LEOAfter)
	p.line("จากนั้น leader ล้ม · ผู้ตามขึ้นเป็นผู้นำด้วย epoch %d และของเก่ากลายเป็นผู้ตาม", epoch)
	p.line("record ที่หายถาวร %d ตัว", lost)
	return p.flush(w)
}

// EpochTruncation is the same scenario under KIP-101's rule: the restarted
// follower asks the leader where its epoch ends and cuts there, and nothing
// is lost when the leader then fails.
func (d *Demo) EpochTruncation(w io.Writer) error {
	s, err := d.kip101Scenario("kip101-leader-epoch")
	if err != nil {
		return err
	}
	defer s.c.Close()
	restart, err := s.c.RestartFollower(replica.TruncateByLeaderEpoch)
	if err != nil {
		return err
	}
	a := restart.Answer
	cut := min(restart.LEOBefore, a.EndOffset)
	if err := claim(restart.LEOAfter == cut && restart.LEOAfter > s.followerHW,
		"the follower should cut to min(LEO %d, answer %d) = %d, above its HW %d; LEO is %d",
		restart.LEOBefore, a.EndOffset, cut, s.followerHW, restart.LEOAfter); err != nil {
		return err
	}
	_, lost, err := d.failOverAndCount(s, replica.TruncateByLeaderEpoch)
	if err != nil {
		return err
	}
	if err := claim(lost == 0, "the epoch rule should lose nothing, lost %d", lost); err != nil {
		return err
	}
	var p printer
	p.line("== ทางที่ถูก · ถามหา end offset ของ epoch ที่ตัวเองมี ==")
	p.line("ผู้ตามอยู่ในสถานะเดียวกันเป๊ะ · LEO %d · HW ของตัวเอง %d", s.followerLEO, s.followerHW)
	p.line("ผู้ตามถาม end offset ของ epoch %d → leader ตอบ %s", restart.Asked, comma(a.Epoch, a.EndOffset, a.Found))
	p.line("ผู้ตามตัดถึง min(LEO ของตัวเอง, end offset ที่ได้) = %d → LEO เหลือ %d", cut, restart.LEOAfter)
	p.line("record ที่หาย %d ตัว", lost)
	p.line("**ผู้ตามไม่เคยตัดถึง high watermark ของตัวเอง** มันตัดถึงคำตอบของ leader")
	p.line("สถานการณ์ที่ 1 คือข้อมูล **หาย** · สถานการณ์ที่ 2 ของ KIP เดียวกันคือ log **แตกสาย**")
	p.line("ซึ่ง KIP-279 เป็นคนปิดรูที่เหลือ · ทั้งสองอย่างวาดไว้ ไม่ได้ขับ")
	return p.flush(w)
}

// EpochVector builds the chapter's epoch vector on a real replica — leader
// at epoch 0 for five records, at epoch 1 for one, then at epoch 3 (epoch 2
// belonged to a leader that wrote nothing) — and asks it for every epoch
// from -1 to one past the last.
func (d *Demo) EpochVector(w io.Writer) error {
	now := d.cfg.NowMs
	const id = 1
	r, err := replica.Open(id, d.sub("epoch-vector"), replica.Options{})
	if err != nil {
		return err
	}
	defer r.Close()
	for i, term := range []struct {
		epoch   int32
		records int
	}{{0, 5}, {1, 1}, {3, 0}} {
		st := replica.PartitionState{Leader: id, LeaderEpoch: term.epoch, PartitionEpoch: int32(i), Replicas: []int32{id}, ISR: []int32{id}, MinISR: 1}
		if err := r.BecomeLeader(st, now); err != nil {
			return err
		}
		for n := range term.records {
			batch, err := log.AppendBatch(nil, &log.Batch{
				BaseTimestamp: now, MaxTimestamp: now, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1,
				Records: []log.Record{{Value: fmt.Appendf(nil, "e%d-%d", term.epoch, n)}},
			})
			if err != nil {
				return err
			}
			if _, _, err := r.Produce(uint64(n), batch, wire.AcksLeader, 0, now); err != nil {
				return fmt.Errorf("produce at epoch %d: %w", term.epoch, err)
			}
		}
	}
	entries := r.Epochs()
	leo := r.LEO()
	var p printer
	p.line("== leader epoch · เวกเตอร์ที่ leader เติมตอน BecomeLeader ==")
	p.line("  epoch   start_offset")
	for _, e := range entries {
		p.line("%7d%15d", e.Epoch, e.StartOffset)
	}
	p.line("  ขอ epoch   ได้ (epoch, end_offset, ok)")
	last := entries[len(entries)-1].Epoch
	queries := make([]int32, 0, last+3)
	for e := int32(0); e <= last+1; e++ {
		queries = append(queries, e)
	}
	queries = append(queries, -1)
	var gapAsked, gapGot int32 = -1, -1
	notFound := false
	for _, q := range queries {
		e, end, ok := r.EndOffsetForEpoch(q)
		p.line("%10d   %s", q, comma(e, end, ok))
		known := slices.ContainsFunc(entries, func(x epochEntry) bool { return x.Epoch == q })
		if ok && !known && q <= last && gapAsked < 0 {
			gapAsked, gapGot = q, e
		}
		notFound = notFound || !ok
	}
	if err := claim(gapAsked >= 0 && gapGot < gapAsked && notFound,
		"the vector should answer an epoch that never existed with an older one, and -1 with not found"); err != nil {
		return err
	}
	wireEpoch, wireOffset, err := notFoundOnTheWire()
	if err != nil {
		return err
	}
	p.line("ขอ epoch %d ซึ่งไม่เคยมีอยู่ แล้วได้ epoch %d กลับมา · นี่คือส่วนที่ KIP-279 แก้", gapAsked, gapGot)
	p.line("การเทียบเป็น `<=` ไม่ใช่ `==` · ผู้ตามจึงบรรจบที่ epoch ร่วมที่ใหญ่ที่สุดได้")
	p.line("`ok == false` แปลว่าไม่พบ · ไม่ใช่ค่าพิเศษที่ยัดลง %T เพราะ -1 ใส่ %T ไม่ได้", leo, leo)
	p.line("ที่ขอบของ wire เท่านั้นที่ `ok == false` กลายเป็น (%d, %d)", wireEpoch, wireOffset)
	p.line("ในหน่วยความจำมันเป็น `(%T, %T, %T)` ตลอดทาง", gapGot, leo, notFound)
	return p.flush(w)
}
