package examples

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kaenlog/kaenlog/epoch"
	"github.com/kaenlog/kaenlog/wire"
)

// The last two sections say what the demo does not show. Their only values
// are Go types, taken from the values themselves.

type epochEntry = epoch.Entry

// notFoundOnTheWire encodes a not-found offsets-for-leader-epoch answer and
// reads back the (epoch, end offset) pair it became: the only place where
// "not found" is a number.
func notFoundOnTheWire() (int32, int64, error) {
	resp := wire.OffsetsForLeaderEpochResponse{Partitions: []wire.OffsetsForLeaderEpochPartitionResponse{{Topic: "orders", Found: false}}}
	b, err := resp.AppendTo(nil)
	if err != nil {
		return 0, 0, err
	}
	// The response ends with the epoch (int32) and the end offset (int64).
	if len(b) < 12 {
		return 0, 0, fmt.Errorf("offsets-for-leader-epoch response of %d bytes", len(b))
	}
	tail := b[len(b)-12:]
	e, end := int32(binary.BigEndian.Uint32(tail)), int64(binary.BigEndian.Uint64(tail[4:]))
	back, err := wire.DecodeOffsetsForLeaderEpochResponse(b)
	if err != nil {
		return 0, 0, err
	}
	if err := claim(len(back.Partitions) == 1 && !back.Partitions[0].Found && e < 0 && end < 0, "not found should be (-1, -1) on the wire and Found == false in memory"); err != nil {
		return 0, 0, err
	}
	return e, end, nil
}

// Refusals prints what the capstone refuses to claim.
func (d *Demo) Refusals(w io.Writer) error {
	if err := d.ensureRounds(); err != nil {
		return err
	}
	// The ISR's Go type, taken from the ISR itself.
	isrType := d.main.ISRState().ISR()
	var p printer
	p.line("== สิ่งที่ capstone นี้ปฏิเสธที่จะอ้าง ==")
	p.line("สอง broker ในหนึ่ง process ใช้ kernel เดียว page cache เดียว และไฟฟ้าเส้นเดียวกัน")
	p.line("kaen-log แสดง **protocol** ของการทำสำเนาได้ครบ แต่แสดงความทนทานต่อความล้มเหลว")
	p.line("ไม่ได้เลยแม้แต่นิดเดียว · `acks=all` ที่ทน f ตัวตายคือข้ออ้างที่บทนี้ไม่ยอมพูด")
	p.line("และ ISR ของ kaen-log เป็น %T ใน struct ที่ demo ตัวนี้ถือไว้คนเดียว", isrType)
	p.line("ของ Kafka เป็น field ชื่อ Isr ของ PartitionRecord ใน metadata log · controller")
	p.line("เป็นคนเขียน และ KRaft ทำสำเนา record นั้นด้วย quorum แบบ Raft")
	return p.flush(w)
}

// DrawnNotBuilt prints the three things the chapter draws but does not
// drive.
func (d *Demo) DrawnNotBuilt(w io.Writer) error {
	var p printer
	p.line("== สามอย่างที่วาดไว้ ไม่ได้สร้าง ==")
	p.line("1. ตัวจับเวลาจริง · `ShrinkISR(nowMs)` ถูกขับจริงข้างบนด้วยนาฬิกาที่ป้อนเข้ามา")
	p.line("   สิ่งที่ไม่มีคือ thread ที่ตื่นมาเรียกมันเอง ซึ่งจะทำให้ผลรันไม่นิ่ง")
	p.line("2. สถานการณ์ leader ล้มเร็วของ KIP-279 · การค้นแบบ epoch ที่ใหญ่ที่สุดแต่ไม่เกิน")
	p.line("   ถูกสร้างและมีเทสต์แล้ว · การสลับผู้นำ A→B→A เป็นรูปวาด")
	p.line("3. KRaft กับ ELR · วาดไว้ตามสัญญาเดิมของคอร์สที่ 23 · KRaft คือ Raft")
	p.line("   สำหรับ metadata เท่านั้น ข้อมูลใน partition ยังใช้ ISR อยู่")
	return p.flush(w)
}
