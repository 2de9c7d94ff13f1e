package examples

import (
	"fmt"
	"io"
	"slices"

	"github.com/kaenlog/kaenlog/isr"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica"
	"github.com/kaenlog/kaenlog/wire"
)

// The first five sections: the one-round lag, the ISR and acks=all.

// Rounds drives the configured number of rounds — produce one record with
// acks=1, then one FetchOnce — and prints the leader's and the follower's
// LEO and HW after each, with the records shipped and the HW the response
// carried. Its claim: in every round the follower holds a record it does
// not yet know is committed.
func (d *Demo) Rounds(w io.Writer) error {
	c, err := d.openCluster("rounds")
	if err != nil {
		return err
	}
	d.main = c
	var p printer
	p.line("== %d รอบ · หนึ่งรอบคือ produce หนึ่งครั้ง แล้ว FetchOnce หนึ่งครั้ง ==", d.cfg.Rounds)
	p.line("  รอบ  บทบาท    id  LEO   HW   record ที่ส่ง   HW ในคำตอบ")
	for round := 1; round <= d.cfg.Rounds; round++ {
		if _, _, err := c.Produce(uint64(round), wire.AcksLeader, d.cfg.NowMs); err != nil {
			return fmt.Errorf("round %d: produce: %w", round, err)
		}
		var r replica.FetchReport
		for range max(d.cfg.fetchesPerRound, 1) {
			if r, err = c.FetchOnce(d.cfg.NowMs); err != nil {
				return fmt.Errorf("round %d: %w", round, err)
			}
		}
		if err := claim(r.FollowerHW < r.FollowerLEO && r.ResponseHW == r.FollowerHW,
			"round %d: the follower should hold a record it does not know is committed: LEO %d, HW %d, response HW %d",
			round, r.FollowerLEO, r.FollowerHW, r.ResponseHW); err != nil {
			return err
		}
		p.line("%5d  %-8s%4d%5d%5d%14s%13s", round, c.Leader().Role(), r.LeaderID, r.LeaderLEO, r.LeaderHW, "-", "-")
		p.line("%7s%-8s%4d%5d%5d%14d%13d", "", c.Follower().Role(), r.FollowerID, r.FollowerLEO, r.FollowerHW, r.RecordsShipped, r.ResponseHW)
	}
	// The high watermark is exclusive: a consumer (high-watermark isolation)
	// reads exactly the offsets below it.
	hw := c.Leader().HighWatermark()
	committed, err := c.Leader().Log().Read(nil, 0, 1<<20, log.IsolationHighWatermark)
	if err != nil {
		return err
	}
	n, err := log.CountRecords(committed)
	if err != nil {
		return err
	}
	if err := claim(uint64(n) == hw, "a consumer should read exactly the %d records below the high watermark, read %d", hw, n); err != nil {
		return err
	}
	p.line("")
	p.line("ทุกรอบ ผู้ตามมี LEO สูงกว่า HW ของตัวเอง · มันถือ record ไว้แล้ว")
	p.line("แต่ยังไม่รู้ว่า record นั้น committed · ต้องรอคำตอบของรอบถัดไปถึงจะรู้")
	p.line("high watermark เป็นเพดานแบบ **ไม่รวมตัวมันเอง** · record ที่ offset < HW คือของที่ committed แล้ว")
	d.roundsDone = true
	return p.flush(w)
}

func (d *Demo) ensureRounds() error {
	if d.roundsDone {
		return nil
	}
	return d.Rounds(io.Discard)
}

// ShrinkByTime hands the leader a clock one millisecond past
// replica.lag.time.max.ms after the follower's last catch-up and shows
// ShrinkISR remove it — never the leader.
func (d *Demo) ShrinkByTime(w io.Writer) error {
	if err := d.ensureRounds(); err != nil {
		return err
	}
	c := d.main
	st := c.ISRState()
	before := st.ISR()
	var p printer
	p.line("== ISR หดตามเวลา · ShrinkISR(nowMs) ==")
	p.line("ISR ก่อนหน้า %s", ids(before))
	p.line("  replica   fetch ครั้งสุดท้ายเมื่อ")
	latest := int64(0)
	for _, id := range before {
		if id == st.LeaderID() {
			continue
		}
		at, ok := st.LastCaughtUpMs(id)
		if err := claim(ok, "replica %d has no last fetch time", id); err != nil {
			return err
		}
		latest = max(latest, at)
		p.line("%9d   %d", id, at)
	}
	now := latest + st.LagMaxMs() + 1
	changed, err := c.ShrinkISR(now)
	if err != nil {
		return err
	}
	after := st.ISR()
	if err := claim(changed && len(after) < len(before) && st.InISR(st.LeaderID()),
		"ShrinkISR(%d) should remove the follower and keep the leader: %s → %s", now, ids(before), ids(after)); err != nil {
		return err
	}
	p.line("ป้อน nowMs = %d ซึ่งเลยเกณฑ์ %d ms ไปหนึ่งมิลลิวินาที", now, st.LagMaxMs())
	p.line("ShrinkISR คืน %t · ISR ตอนนี้ %s", changed, ids(after))
	p.line("ต่ำกว่า min.insync.replicas แล้ว: %s", yes(st.UnderMinISR()))
	p.line("leader ไม่เคยถอดตัวเองออกจาก ISR ของตัวเอง · ที่เหลืออยู่คือ id %s", joinIDs(after))
	d.shrinkDone = true
	return p.flush(w)
}

func yes(b bool) string {
	if b {
		return "ใช่"
	}
	return "ไม่"
}

func (d *Demo) ensureShrink() error {
	if d.shrinkDone {
		return nil
	}
	return d.ShrinkByTime(io.Discard)
}

// TwoJudges shows the two ways out of the ISR on a three-replica leader: the
// leader removes a follower that fell behind (time), the controller removes
// one that lost its session. Only the controller lets a replica back in.
func (d *Demo) TwoJudges(w io.Writer) error {
	now := d.cfg.NowMs
	st, err := isr.NewState(isr.Config{LeaderID: 1, ISR: []int32{1, 2, 3}, MinISR: d.cfg.MinISR, LagMaxMs: lagMaxMs}, now)
	if err != nil {
		return err
	}
	initial := st.ISR()
	// Replica 2 keeps fetching to the leader's end; replica 3 falls silent.
	const leaderLEO = 0
	if err := st.Observe(2, leaderLEO, leaderLEO, now+lagMaxMs); err != nil {
		return err
	}
	byTime := st.ShrinkISR(now + lagMaxMs + 1)
	afterTime := st.ISR()
	bySession, err := st.RemoveLostSession(2)
	if err != nil {
		return err
	}
	afterSession := st.ISR()
	if err := claim(byTime && !slices.Contains(afterTime, 3) && slices.Contains(afterTime, 2),
		"the leader's time rule should remove only the silent replica 3: %s → %s", ids(initial), ids(afterTime)); err != nil {
		return err
	}
	if err := claim(bySession && !slices.Contains(afterSession, 2) && slices.Contains(afterSession, 1),
		"the controller should remove replica 2 and keep the leader: %s → %s", ids(afterTime), ids(afterSession)); err != nil {
		return err
	}
	var p printer
	p.line("== สองเงื่อนไขที่ถอด replica ออกจาก ISR ได้ · คนละผู้ตัดสิน ==")
	p.line("  ISR ตั้งต้น                                    %s", ids(initial))
	p.line("  leader ถอดตัวที่ตามไม่ทัน (เกณฑ์เวลา)          %s", ids(afterTime))
	p.line("  controller ถอดตัวที่ขาด session กับ controller  %s", ids(afterSession))
	p.line("เงื่อนไขข้อแรก leader เป็นคนวัด · ข้อที่สอง controller เป็นคนวัด")
	p.line("replica ตัวเดียวจึงหลุด ISR ได้จากสองทางที่ไม่เกี่ยวกันเลย")
	return p.flush(w)
}

// Consequences produces with acks=all and then acks=1 right after the
// shrink: under min.insync.replicas the first is refused before the append,
// the second is written, and the high watermark does not move, so the new
// record is on disk and not committed.
func (d *Demo) Consequences(w io.Writer) error {
	if err := d.ensureShrink(); err != nil {
		return err
	}
	c := d.main
	leader := c.Leader()
	next := uint64(d.cfg.Rounds + 1)
	hwBefore, leoBefore := leader.HighWatermark(), leader.LEO()
	under := c.ISRState().UnderMinISR()

	var p printer
	p.line("== ผลที่ตามมาทันที ==")
	all, _, err := c.Produce(next, wire.AcksAll, d.cfg.NowMs)
	allBase, allCode := all.BaseOffset, wire.CodeOf(err)
	if err != nil && allCode != wire.CodeNotEnoughReplicas {
		return err
	}
	if under {
		if err := claim(allCode == wire.CodeNotEnoughReplicas && leader.LEO() == leoBefore,
			"acks=all under min.insync.replicas should be refused before the append: %v, LEO %d → %d", allCode, leoBefore, leader.LEO()); err != nil {
			return err
		}
		p.line("produce แบบ acks=all → %s (%v · ตรวจก่อน append)", codeText(allCode), allCode)
	} else {
		if err := claim(allCode == wire.CodeNone, "acks=all with the ISR at min.insync.replicas should be written: %v", allCode); err != nil {
			return err
		}
		p.line("produce แบบ acks=all → base_offset %d · %s (ISR ยังไม่ต่ำกว่าเกณฑ์ จึงเขียนได้)", allBase, codeText(allCode))
		next++
	}
	res, _, err := c.Produce(next, wire.AcksLeader, d.cfg.NowMs)
	if err := claim(err == nil, "acks=1 should always be written: %v", err); err != nil {
		return err
	}
	base, code := res.BaseOffset, wire.CodeOf(err)
	p.line("produce แบบ acks=1 → base_offset %d · %s (เขียนได้ตามปกติ)", base, codeText(code))
	hwAfter := leader.HighWatermark()
	if under {
		if err := claim(hwAfter == hwBefore, "the high watermark should not move under min.insync.replicas: %d → %d", hwBefore, hwAfter); err != nil {
			return err
		}
		p.line("high watermark %d → %d (ไม่เลื่อน ขณะอยู่ต่ำกว่าเกณฑ์)", hwBefore, hwAfter)
	} else {
		p.line("high watermark %d → %d (เลื่อนได้ เพราะ ISR ยังไม่ต่ำกว่าเกณฑ์)", hwBefore, hwAfter)
	}
	p.line("acks เปลี่ยนเวลาที่ตอบ ไม่เคยเปลี่ยนสิ่งที่เขียน · ข้อนี้ยังจริงอยู่ที่นี่")

	// On disk: a follower's read (log-end isolation) finds the record; a
	// consumer's (high-watermark isolation) does not, unless it is committed.
	onDisk, err := leader.Log().Read(nil, base, 1<<20, log.IsolationLogEnd)
	if err != nil {
		return err
	}
	h, err := log.VerifyBatch(onDisk)
	if err := claim(err == nil && h.BaseOffset == base, "the record at offset %d should be in the log: %v", base, err); err != nil {
		return err
	}
	visible, err := leader.Log().Read(nil, base, 1<<20, log.IsolationHighWatermark)
	if err != nil {
		return err
	}
	committed := base < hwAfter
	if err := claim(committed == (len(visible) > 0), "a consumer should see offset %d exactly when it is committed (HW %d)", base, hwAfter); err != nil {
		return err
	}
	if committed {
		p.line("record ที่ offset %d อยู่บน disk แล้ว และ committed แล้ว", base)
	} else {
		p.line("record ที่ offset %d อยู่บน disk แล้ว แต่ยังไม่ committed", base)
	}
	return p.flush(w)
}

// TwoErrors shows the acks=all gate's three verdicts on a real write: before
// the high watermark reaches it, after, and after the ISR shrank under
// min.insync.replicas behind it.
func (d *Demo) TwoErrors(w io.Writer) error {
	c, err := d.openCluster("acks-gate")
	if err != nil {
		return err
	}
	defer c.Close()
	now := d.cfg.NowMs
	res, _, err := c.Produce(1, wire.AcksAll, now)
	if err != nil {
		return fmt.Errorf("produce: %w", err)
	}
	required := res.NextOffset // the high watermark is exclusive: the offset after the record
	type row struct {
		label   string
		hw      uint64
		isrSize int
		verdict isr.Verdict
	}
	verdict := func(label string) (row, error) {
		v, err := c.Leader().AckVerdict(required)
		return row{label, c.Leader().HighWatermark(), len(c.ISRState().ISR()), v}, err
	}
	notYet, err := verdict("  HW ยังไม่ถึง offset ที่ต้องการ                   ")
	if err != nil {
		return err
	}
	for range 2 { // one round ships the record, the next brings the HW
		if _, err := c.FetchOnce(now); err != nil {
			return err
		}
	}
	committed, err := verdict("  HW ถึงแล้ว และ ISR ยังครบ                        ")
	if err != nil {
		return err
	}
	if _, err := c.ShrinkISR(now + lagMaxMs + 1); err != nil {
		return err
	}
	shrunk, err := verdict("  HW ถึงแล้ว แต่ ISR หดหลัง append ไปแล้ว          ")
	if err != nil {
		return err
	}
	if err := claim(notYet.hw < required && committed.hw >= required && shrunk.hw >= required &&
		committed.isrSize == Replicas && shrunk.isrSize < Replicas,
		"the three rows should be: HW short (%d < %d), HW reached with a full ISR (%d, %d), HW reached after a shrink (%d, %d)",
		notYet.hw, required, committed.hw, committed.isrSize, shrunk.hw, shrunk.isrSize); err != nil {
		return err
	}
	var p printer
	p.line("== สองข้อผิดพลาด ไม่ใช่ข้อเดียว ==")
	p.line("  สถานการณ์                                      คำตัดสิน")
	for _, r := range []row{notYet, committed, shrunk} {
		p.line("%s%v", r.label, r.verdict)
	}
	before, ok1 := wire.CodeNotEnoughReplicas.KafkaCode()
	after, ok2 := wire.CodeNotEnoughReplicasAfterAppend.KafkaCode()
	if !ok1 || !ok2 {
		return fmt.Errorf("no Kafka counterpart for %v or %v", wire.CodeNotEnoughReplicas, wire.CodeNotEnoughReplicasAfterAppend)
	}
	p.line("ข้อแรกคือ error %d ตรวจ **ก่อน** append · ข้อหลังคือ error %d ตรวจ **หลัง** append", before, after)
	p.line("ทั้งคู่ retry ได้ · ซึ่งเป็นเหตุผลว่าทำไม acks=all ถึงผลิตของซ้ำได้")
	p.line("ถ้าไม่มี producer แบบกันซ้ำของบทที่ 7 มาช่วย")
	return p.flush(w)
}
