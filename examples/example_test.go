package examples_test

// One runnable Example per section of the chapter's demo. Each runs the
// section (and whatever earlier part of the story it continues) on real
// directories and prints exactly what the demo prints.

import (
	"fmt"
	"os"

	"github.com/kaenlog/kaenlog/examples"
)

// section runs one section of the chapter's demo in a temporary directory.
func section(run func(*examples.Demo) error) {
	dir, err := os.MkdirTemp("", "kaenlog-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	d, err := examples.NewDemo(examples.ChapterConfig(dir))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	if err := run(d); err != nil {
		fmt.Println(err)
	}
}

// Rounds drives four rounds of produce-then-FetchOnce. In every round the follower holds a record it does not yet know is committed: the high watermark travels back in the response, one round behind the records.
func ExampleDemo_Rounds() {
	section(func(d *examples.Demo) error { return d.Rounds(os.Stdout) })
	// Output:
	// == 4 รอบ · หนึ่งรอบคือ produce หนึ่งครั้ง แล้ว FetchOnce หนึ่งครั้ง ==
	//   รอบ  บทบาท    id  LEO   HW   record ที่ส่ง   HW ในคำตอบ
	//     1  leader     1    1    0             -            -
	//        follower   2    1    0             1            0
	//     2  leader     1    2    1             -            -
	//        follower   2    2    1             1            1
	//     3  leader     1    3    2             -            -
	//        follower   2    3    2             1            2
	//     4  leader     1    4    3             -            -
	//        follower   2    4    3             1            3
	//
	// ทุกรอบ ผู้ตามมี LEO สูงกว่า HW ของตัวเอง · มันถือ record ไว้แล้ว
	// แต่ยังไม่รู้ว่า record นั้น committed · ต้องรอคำตอบของรอบถัดไปถึงจะรู้
	// high watermark เป็นเพดานแบบ **ไม่รวมตัวมันเอง** · record ที่ offset < HW คือของที่ committed แล้ว
}

// ShrinkByTime hands the leader a clock one millisecond past replica.lag.time.max.ms after the follower last caught up. ShrinkISR removes the follower; the leader never removes itself.
func ExampleDemo_ShrinkByTime() {
	section(func(d *examples.Demo) error { return d.ShrinkByTime(os.Stdout) })
	// Output:
	// == ISR หดตามเวลา · ShrinkISR(nowMs) ==
	// ISR ก่อนหน้า [1, 2]
	//   replica   fetch ครั้งสุดท้ายเมื่อ
	//         2   1700000000000
	// ป้อน nowMs = 1700000030001 ซึ่งเลยเกณฑ์ 30000 ms ไปหนึ่งมิลลิวินาที
	// ShrinkISR คืน true · ISR ตอนนี้ [1]
	// ต่ำกว่า min.insync.replicas แล้ว: ใช่
	// leader ไม่เคยถอดตัวเองออกจาก ISR ของตัวเอง · ที่เหลืออยู่คือ id 1
}

// TwoJudges shows the two ways out of the ISR, each with its own judge: the leader's time rule and the controller's lost session.
func ExampleDemo_TwoJudges() {
	section(func(d *examples.Demo) error { return d.TwoJudges(os.Stdout) })
	// Output:
	// == สองเงื่อนไขที่ถอด replica ออกจาก ISR ได้ · คนละผู้ตัดสิน ==
	//   ISR ตั้งต้น                                    [1, 2, 3]
	//   leader ถอดตัวที่ตามไม่ทัน (เกณฑ์เวลา)          [1, 2]
	//   controller ถอดตัวที่ขาด session กับ controller  [1]
	// เงื่อนไขข้อแรก leader เป็นคนวัด · ข้อที่สอง controller เป็นคนวัด
	// replica ตัวเดียวจึงหลุด ISR ได้จากสองทางที่ไม่เกี่ยวกันเลย
}

// Consequences produces right after the shrink: acks=all is refused before the append, acks=1 is written, and the high watermark stays, so the new record is on disk and not committed.
func ExampleDemo_Consequences() {
	section(func(d *examples.Demo) error { return d.Consequences(os.Stdout) })
	// Output:
	// == ผลที่ตามมาทันที ==
	// produce แบบ acks=all → error 2 (NOT_ENOUGH_REPLICAS · ตรวจก่อน append)
	// produce แบบ acks=1 → base_offset 4 · error 0 (เขียนได้ตามปกติ)
	// high watermark 3 → 3 (ไม่เลื่อน ขณะอยู่ต่ำกว่าเกณฑ์)
	// acks เปลี่ยนเวลาที่ตอบ ไม่เคยเปลี่ยนสิ่งที่เขียน · ข้อนี้ยังจริงอยู่ที่นี่
	// record ที่ offset 4 อยู่บน disk แล้ว แต่ยังไม่ committed
}

// TwoErrors takes one acks=all write through the gate's three verdicts: not yet, committed, and not enough replicas after the append.
func ExampleDemo_TwoErrors() {
	section(func(d *examples.Demo) error { return d.TwoErrors(os.Stdout) })
	// Output:
	// == สองข้อผิดพลาด ไม่ใช่ข้อเดียว ==
	//   สถานการณ์                                      คำตัดสิน
	//   HW ยังไม่ถึง offset ที่ต้องการ                   NotYet
	//   HW ถึงแล้ว และ ISR ยังครบ                        Committed
	//   HW ถึงแล้ว แต่ ISR หดหลัง append ไปแล้ว          NotEnoughReplicasAfterAppend
	// ข้อแรกคือ error 19 ตรวจ **ก่อน** append · ข้อหลังคือ error 20 ตรวจ **หลัง** append
	// ทั้งคู่ retry ได้ · ซึ่งเป็นเหตุผลว่าทำไม acks=all ถึงผลิตของซ้ำได้
	// ถ้าไม่มี producer แบบกันซ้ำของบทที่ 7 มาช่วย
}

// HighWatermarkTruncation is KIP-101 scenario 1 under the old rule: a follower that truncates to its own high watermark, then wins an election, loses a record for good.
func ExampleDemo_HighWatermarkTruncation() {
	section(func(d *examples.Demo) error { return d.HighWatermarkTruncation(os.Stdout) })
	// Output:
	// == KIP-101 สถานการณ์ที่ 1 · ตัดถึง high watermark แล้วข้อมูลหาย ==
	// leader มี LEO 2 · HW 1
	// ผู้ตามมี LEO 2 · HW ของตัวเอง 1
	// ผู้ตามถือ m2 ไว้แล้ว แต่ยังไม่รู้ว่ามัน committed หรือยัง
	// ผู้ตาม restart แล้วตัด log ถึง HW ของตัวเอง → LEO เหลือ 1
	// จากนั้น leader ล้ม · ผู้ตามขึ้นเป็นผู้นำด้วย epoch 1 และของเก่ากลายเป็นผู้ตาม
	// record ที่หายถาวร 1 ตัว
}

// EpochTruncation is the same scenario under KIP-101's rule: the follower asks the leader where its epoch ends and truncates to that, and nothing is lost.
func ExampleDemo_EpochTruncation() {
	section(func(d *examples.Demo) error { return d.EpochTruncation(os.Stdout) })
	// Output:
	// == ทางที่ถูก · ถามหา end offset ของ epoch ที่ตัวเองมี ==
	// ผู้ตามอยู่ในสถานะเดียวกันเป๊ะ · LEO 2 · HW ของตัวเอง 1
	// ผู้ตามถาม end offset ของ epoch 0 → leader ตอบ (0, 2, true)
	// ผู้ตามตัดถึง min(LEO ของตัวเอง, end offset ที่ได้) = 2 → LEO เหลือ 2
	// record ที่หาย 0 ตัว
	// **ผู้ตามไม่เคยตัดถึง high watermark ของตัวเอง** มันตัดถึงคำตอบของ leader
	// สถานการณ์ที่ 1 คือข้อมูล **หาย** · สถานการณ์ที่ 2 ของ KIP เดียวกันคือ log **แตกสาย**
	// ซึ่ง KIP-279 เป็นคนปิดรูที่เหลือ · ทั้งสองอย่างวาดไว้ ไม่ได้ขับ
}

// EpochVector builds the chapter's leader-epoch vector on a real replica and asks it the <= question for every epoch.
func ExampleDemo_EpochVector() {
	section(func(d *examples.Demo) error { return d.EpochVector(os.Stdout) })
	// Output:
	// == leader epoch · เวกเตอร์ที่ leader เติมตอน BecomeLeader ==
	//   epoch   start_offset
	//       0              0
	//       1              5
	//       3              6
	//   ขอ epoch   ได้ (epoch, end_offset, ok)
	//          0   (0, 5, true)
	//          1   (1, 6, true)
	//          2   (1, 6, true)
	//          3   (3, 6, true)
	//          4   (3, 6, true)
	//         -1   (0, 0, false)
	// ขอ epoch 2 ซึ่งไม่เคยมีอยู่ แล้วได้ epoch 1 กลับมา · นี่คือส่วนที่ KIP-279 แก้
	// การเทียบเป็น `<=` ไม่ใช่ `==` · ผู้ตามจึงบรรจบที่ epoch ร่วมที่ใหญ่ที่สุดได้
	// `ok == false` แปลว่าไม่พบ · ไม่ใช่ค่าพิเศษที่ยัดลง uint64 เพราะ -1 ใส่ uint64 ไม่ได้
	// ที่ขอบของ wire เท่านั้นที่ `ok == false` กลายเป็น (-1, -1)
	// ในหน่วยความจำมันเป็น `(int32, uint64, bool)` ตลอดทาง
}

// Refusals prints what the capstone refuses to claim.
func ExampleDemo_Refusals() {
	section(func(d *examples.Demo) error { return d.Refusals(os.Stdout) })
	// Output:
	// == สิ่งที่ capstone นี้ปฏิเสธที่จะอ้าง ==
	// สอง broker ในหนึ่ง process ใช้ kernel เดียว page cache เดียว และไฟฟ้าเส้นเดียวกัน
	// kaen-log แสดง **protocol** ของการทำสำเนาได้ครบ แต่แสดงความทนทานต่อความล้มเหลว
	// ไม่ได้เลยแม้แต่นิดเดียว · `acks=all` ที่ทน f ตัวตายคือข้ออ้างที่บทนี้ไม่ยอมพูด
	// และ ISR ของ kaen-log เป็น []int32 ใน struct ที่ demo ตัวนี้ถือไว้คนเดียว
	// ของ Kafka เป็น field ชื่อ Isr ของ PartitionRecord ใน metadata log · controller
	// เป็นคนเขียน และ KRaft ทำสำเนา record นั้นด้วย quorum แบบ Raft
}

// DrawnNotBuilt prints the three things the chapter draws but does not build.
func ExampleDemo_DrawnNotBuilt() {
	section(func(d *examples.Demo) error { return d.DrawnNotBuilt(os.Stdout) })
	// Output:
	// == สามอย่างที่วาดไว้ ไม่ได้สร้าง ==
	// 1. ตัวจับเวลาจริง · `ShrinkISR(nowMs)` ถูกขับจริงข้างบนด้วยนาฬิกาที่ป้อนเข้ามา
	//    สิ่งที่ไม่มีคือ thread ที่ตื่นมาเรียกมันเอง ซึ่งจะทำให้ผลรันไม่นิ่ง
	// 2. สถานการณ์ leader ล้มเร็วของ KIP-279 · การค้นแบบ epoch ที่ใหญ่ที่สุดแต่ไม่เกิน
	//    ถูกสร้างและมีเทสต์แล้ว · การสลับผู้นำ A→B→A เป็นรูปวาด
	// 3. KRaft กับ ELR · วาดไว้ตามสัญญาเดิมของคอร์สที่ 23 · KRaft คือ Raft
	//    สำหรับ metadata เท่านั้น ข้อมูลใน partition ยังใช้ ISR อยู่
}
