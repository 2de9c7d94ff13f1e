package controller

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kaenlog/kaenlog/log"
	"github.com/kaenlog/kaenlog/replica/internal/testkit"
	"github.com/kaenlog/kaenlog/wire"
)

func genIDs(r *rand.Rand) []int32 {
	n := r.IntN(5)
	if n == 0 {
		return nil // empty decodes as nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(r.Uint32())
	}
	return out
}

func genName(r *rand.Rand) string {
	b := make([]byte, r.IntN(20))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return string(b)
}

func genRecord(r *rand.Rand) Record {
	lrs := wire.LeaderRecoveryState(r.IntN(2))
	changes := []BoolChange{Unchanged, SetTrue, SetFalse}
	switch r.IntN(8) {
	case 6:
		c := ConfigRecord{ResourceType: int8(r.Uint32()), ResourceName: genName(r), Name: genName(r), Delete: r.IntN(3) == 0}
		if !c.Delete {
			c.Value = genName(r)
		}
		return c
	case 5:
		return RemoveTopicRecord{Name: genName(r)}
	case 0:
		rec := RegisterBrokerRecord{BrokerID: int32(r.Uint32()), BrokerEpoch: int64(r.Uint64()), Endpoint: genName(r), Fenced: r.IntN(2) == 0}
		for i := range rec.IncarnationID {
			rec.IncarnationID[i] = byte(r.Uint32())
		}
		return rec
	case 1:
		return BrokerRegistrationChangeRecord{BrokerID: int32(r.Uint32()), BrokerEpoch: int64(r.Uint64()),
			Fenced: changes[r.IntN(3)], InControlledShutdown: changes[r.IntN(3)]}
	case 2:
		return TopicRecord{Name: genName(r), MinISR: int32(r.Uint32()), UncleanLeaderElection: r.IntN(2) == 0}
	case 4:
		return ProducerIDsRecord{BrokerID: int32(r.Uint32()), BrokerEpoch: int64(r.Uint64()), NextProducerID: int64(r.Uint64())}
	case 3:
		return PartitionRecord{Topic: genName(r), Partition: int32(r.Uint32()), Replicas: genIDs(r), ISR: genIDs(r), ELR: genIDs(r),
			LastKnownELR: genIDs(r), Leader: int32(r.Uint32()), LeaderEpoch: int32(r.Uint32()), PartitionEpoch: int32(r.Uint32()), LeaderRecoveryState: lrs}
	}
	pc := PartitionChangeRecord{Topic: genName(r), Partition: int32(r.Uint32()), ISR: genIDs(r), ELR: genIDs(r), LastKnownELR: genIDs(r),
		Leader: int32(r.Uint32()), LeaderEpoch: int32(r.Uint32()), PartitionEpoch: int32(r.Uint32()), LeaderRecoveryState: lrs}
	if r.IntN(2) == 0 {
		pc.Replicas, pc.AddingReplicas, pc.RemovingReplicas = genIDs(r), genIDs(r), genIDs(r)
	}
	return pc
}

func checkRecordRoundTrip(t *testing.T, rec Record) {
	t.Helper()
	b, err := rec.AppendTo([]byte("prefix"))
	if err != nil {
		t.Fatalf("AppendTo(%+v): %v", rec, err)
	}
	if !bytes.HasPrefix(b, []byte("prefix")) {
		t.Fatal("AppendTo clobbered dst")
	}
	b = b[len("prefix"):]
	if b[0] != byte(rec.Type()) || b[1] != recordVersion {
		t.Fatalf("%T encodes type %d version %d", rec, b[0], b[1])
	}
	got, err := DecodeRecord(b)
	if err != nil {
		t.Fatalf("DecodeRecord(AppendTo(%+v)): %v", rec, err)
	}
	if diff := cmp.Diff(rec, got); diff != "" {
		t.Fatalf("round trip (-sent +decoded):\n%s", diff)
	}
	again, _ := got.AppendTo(nil)
	if !bytes.Equal(again, b) {
		t.Fatalf("re-encoding differs:\n% x\n% x", b, again)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	id := incarnation(1, 1)
	for _, rec := range []Record{
		RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 0, IncarnationID: id, Endpoint: "b1:9092", Fenced: true},
		RegisterBrokerRecord{BrokerID: math.MaxInt32, BrokerEpoch: math.MaxInt64, Endpoint: strings.Repeat("e", maxLength)},
		BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 4, Fenced: SetFalse},
		BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 4, Fenced: SetTrue, InControlledShutdown: SetTrue},
		TopicRecord{Name: "orders", MinISR: 2, UncleanLeaderElection: true},
		PartitionRecord{Topic: "orders", Partition: 0, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Leader: 1},
		PartitionRecord{Topic: "o", Replicas: []int32{1}, ELR: []int32{1}, LastKnownELR: []int32{1}, Leader: NoLeader, LeaderRecoveryState: wire.LeaderRecovering},
		PartitionChangeRecord{Topic: "orders", ISR: []int32{2}, ELR: []int32{1, 3}, Leader: 2, LeaderEpoch: 1, PartitionEpoch: 5},
		PartitionChangeRecord{Topic: "orders", LastKnownELR: []int32{1}, Leader: NoLeader, LeaderEpoch: 2, PartitionEpoch: 6},
		PartitionChangeRecord{Topic: "orders", ISR: []int32{1, 2}, Leader: 1, PartitionEpoch: 7,
			Replicas: []int32{4, 2, 1}, AddingReplicas: []int32{4}, RemovingReplicas: []int32{1}},
		PartitionChangeRecord{Topic: "orders", ISR: []int32{2, 4}, Leader: 4, LeaderEpoch: 1, PartitionEpoch: 8, Replicas: []int32{4, 2}},
		RemoveTopicRecord{Name: "orders"},
		RemoveTopicRecord{},
		ConfigRecord{ResourceType: ResourceTopic, ResourceName: "orders", Name: "retention.ms", Value: "1000"},
		ConfigRecord{ResourceType: ResourceTopic, ResourceName: "orders", Name: "retention.ms", Delete: true},
		ConfigRecord{},
		ProducerIDsRecord{BrokerID: NoLeader, BrokerEpoch: -1, NextProducerID: 1000},
		ProducerIDsRecord{BrokerID: 3, BrokerEpoch: 7, NextProducerID: math.MaxInt64},
	} {
		checkRecordRoundTrip(t, rec)
	}
}

// TestRecordsRoundTripRandom is the property: decode inverts encode for
// every record, and the encoding is canonical.
func TestRecordsRoundTripRandom(t *testing.T) {
	r := testkit.NewRand(t)
	for range 3000 {
		checkRecordRoundTrip(t, genRecord(r))
	}
}

func TestRecordEncodersRefuseWhatTheDecoderCannotRead(t *testing.T) {
	long := strings.Repeat("x", maxLength+1)
	for _, rec := range []Record{
		RegisterBrokerRecord{Endpoint: long},
		TopicRecord{Name: long},
		RemoveTopicRecord{Name: long},
		ConfigRecord{Value: long},
		ConfigRecord{Name: "a", Delete: true, Value: "b"},
		PartitionRecord{Replicas: make([]int32, maxLength+1)},
		PartitionRecord{LeaderRecoveryState: 2},
		PartitionChangeRecord{ISR: make([]int32, maxLength+1)},
		PartitionChangeRecord{LeaderRecoveryState: -1},
		BrokerRegistrationChangeRecord{Fenced: 2},
		BrokerRegistrationChangeRecord{InControlledShutdown: -2},
	} {
		got, err := rec.AppendTo([]byte("keep"))
		if !errors.Is(err, ErrBadRecord) || string(got) != "keep" {
			t.Errorf("%T: err %v, dst %q; want ErrBadRecord and dst unchanged", rec, err, got)
		}
	}
}

// Every refusal of DecodeRecord matches ErrBadRecord and carries
// CORRUPT_MESSAGE; nothing panics; an accepted input re-encodes to itself.
func TestDecodeRecordRefusesGarbage(t *testing.T) {
	valid, _ := PartitionRecord{Topic: "t", Replicas: []int32{1}, ISR: []int32{1}, Leader: 1}.AppendTo(nil)
	for name, b := range map[string][]byte{
		"empty":            nil,
		"type only":        {byte(TypeTopic)},
		"unknown type":     {9, 0},
		"version 1":        {byte(TypeTopic), 1, 0, 0, 0, 0, 0, 1, 0},
		"bool 2":           {byte(TypeTopic), 0, 0, 0, 0, 0, 0, 1, 2},
		"tri-state 2":      append(append([]byte{byte(TypeBrokerRegistrationChange), 0}, make([]byte, 12)...), 2, 0),
		"trailing byte":    append(append([]byte(nil), valid...), 0),
		"cut":              valid[:len(valid)-1],
		"huge array count": {byte(TypePartitionChange), 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff},
		"string too long":  {byte(TypeTopic), 0, 0, 9, 'a'},
	} {
		_, err := DecodeRecord(b)
		if !errors.Is(err, ErrBadRecord) || !errors.Is(err, wire.ErrCorruptMessage) || wire.CodeOf(err) != wire.CodeCorruptMessage {
			t.Errorf("%s: err = %v, want ErrBadRecord carrying CORRUPT_MESSAGE", name, err)
		}
	}
	r := testkit.NewRand(t)
	for range 5000 {
		b, _ := genRecord(r).AppendTo(nil)
		switch r.IntN(3) {
		case 0:
			b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
		case 1:
			b = b[:r.IntN(len(b))]
		case 2:
			b = append(b, byte(r.Uint32()))
		}
		fuzzRecord(t, b)
	}
}

// fuzzRecord is FuzzDecodeRecord's property.
func fuzzRecord(t *testing.T, b []byte) {
	t.Helper()
	rec, err := DecodeRecord(b)
	if err != nil {
		if !errors.Is(err, ErrBadRecord) {
			t.Fatalf("DecodeRecord(% x): %v does not match ErrBadRecord", b, err)
		}
		return
	}
	again, err := rec.AppendTo(nil)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("accepted % x but re-encodes as % x (%v)", b, again, err)
	}
}

func FuzzDecodeRecord(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		b, _ := genRecord(r).AppendTo(nil)
		f.Add(b)
	}
	f.Fuzz(fuzzRecord)
}

// Apply refuses every record that would break an invariant, and leaves the
// image exactly as it was.
func TestImageApplyRefusesRecordsThatBreakItsInvariants(t *testing.T) {
	base := func() *Image {
		im := NewImage()
		for _, rec := range []Record{
			RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 0, IncarnationID: incarnation(1, 1), Fenced: true},
			RegisterBrokerRecord{BrokerID: 2, BrokerEpoch: 1, IncarnationID: incarnation(2, 1), Fenced: true},
			TopicRecord{Name: "orders", MinISR: 1},
			PartitionRecord{Topic: "orders", Partition: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1},
		} {
			if err := im.Apply(rec); err != nil {
				t.Fatal(err)
			}
		}
		return im
	}
	part := func(f func(*PartitionRecord)) PartitionRecord {
		p := PartitionRecord{Topic: "orders", Partition: 1, Replicas: []int32{1, 2}, ISR: []int32{1}, Leader: 1}
		f(&p)
		return p
	}
	change := func(f func(*PartitionChangeRecord)) PartitionChangeRecord {
		c := PartitionChangeRecord{Topic: "orders", Partition: 0, ISR: []int32{1}, Leader: 1, LeaderEpoch: 0, PartitionEpoch: 1}
		f(&c)
		return c
	}
	for name, rec := range map[string]Record{
		"negative broker id":            RegisterBrokerRecord{BrokerID: -1, BrokerEpoch: 4, IncarnationID: incarnation(1, 2)},
		"epoch not the record's offset": RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 3, IncarnationID: incarnation(1, 2)},
		"zero incarnation":              RegisterBrokerRecord{BrokerID: 1, BrokerEpoch: 4},
		"change for an unknown broker":  BrokerRegistrationChangeRecord{BrokerID: 3, BrokerEpoch: 0, Fenced: SetFalse},
		"change for another epoch":      BrokerRegistrationChangeRecord{BrokerID: 2, BrokerEpoch: 0, Fenced: SetFalse},
		"bad tri-state":                 BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 0, Fenced: 3},
		"topic exists":                  TopicRecord{Name: "orders", MinISR: 1},
		"topic name invalid":            TopicRecord{Name: "a/b", MinISR: 1},
		"topic name reserved":           TopicRecord{Name: MetadataTopic, MinISR: 1},
		"min ISR 0":                     TopicRecord{Name: "x", MinISR: 0},
		"partition of unknown topic":    part(func(p *PartitionRecord) { p.Topic = "x" }),
		"partition out of order":        part(func(p *PartitionRecord) { p.Partition = 2 }),
		"partition exists":              part(func(p *PartitionRecord) { p.Partition = 0 }),
		"no replicas":                   part(func(p *PartitionRecord) { p.Replicas, p.ISR, p.Leader = nil, nil, NoLeader }),
		"replica twice":                 part(func(p *PartitionRecord) { p.Replicas = []int32{1, 1} }),
		"negative replica":              part(func(p *PartitionRecord) { p.Replicas = []int32{1, -2} }),
		"ISR outside replicas":          part(func(p *PartitionRecord) { p.ISR = []int32{1, 3} }),
		"ELR outside replicas":          part(func(p *PartitionRecord) { p.ELR = []int32{3} }),
		"ISR and ELR overlap":           part(func(p *PartitionRecord) { p.ELR = []int32{1} }),
		"last known ELR outside":        part(func(p *PartitionRecord) { p.LastKnownELR = []int32{7} }),
		"leader outside the ISR":        part(func(p *PartitionRecord) { p.Leader = 2 }),
		"negative leader epoch":         part(func(p *PartitionRecord) { p.LeaderEpoch = -1 }),
		"recovering with two in ISR":    part(func(p *PartitionRecord) { p.ISR, p.LeaderRecoveryState = []int32{1, 2}, wire.LeaderRecovering }),
		"unknown recovery state":        part(func(p *PartitionRecord) { p.LeaderRecoveryState = 5 }),
		"change to unknown partition":   change(func(c *PartitionChangeRecord) { c.Partition = 1 }),
		"partition epoch +0":            change(func(c *PartitionChangeRecord) { c.PartitionEpoch = 0 }),
		"partition epoch +2":            change(func(c *PartitionChangeRecord) { c.PartitionEpoch = 2 }),
		"leader epoch without a change": change(func(c *PartitionChangeRecord) { c.LeaderEpoch = 1 }),
		"leader change without epoch":   change(func(c *PartitionChangeRecord) { c.Leader = 2; c.ISR = []int32{2} }),
		"leader epoch backwards":        change(func(c *PartitionChangeRecord) { c.Leader, c.LeaderEpoch = NoLeader, -1 }),
		"changed leader outside ISR":    change(func(c *PartitionChangeRecord) { c.Leader, c.LeaderEpoch = 2, 1 }),
	} {
		im := base()
		before := im.String()
		err := im.Apply(rec)
		if !errors.Is(err, ErrInvariant) || wire.CodeOf(err) != wire.CodeCorruptMessage {
			t.Errorf("%s: Apply(%+v) = %v, want ErrInvariant", name, rec, err)
		}
		if im.String() != before {
			t.Errorf("%s: a refused record changed the image", name)
		}
	}
	// The same base accepts a valid change.
	im := base()
	if err := im.Apply(change(func(*PartitionChangeRecord) {})); err != nil {
		t.Fatal(err)
	}
}

// A broker follows the controller with the same Image type: it fetches the
// metadata log with ReadMetadata, in small pieces, and applies the batches.
func TestABrokerFollowsTheControllerByApplyingItsMetadataLog(t *testing.T) {
	h := threeBrokers(t, Config{SessionTimeoutMs: 1000}, wire.CreateTopicsRequest{Topics: []wire.CreatableTopic{{Name: "orders", Partitions: 3, ReplicationFactor: 3, Configs: []wire.TopicConfig{{Name: "min.insync.replicas", Value: "2"}}}}})
	h.silence(1000, 1, 2)
	follower := NewImage()
	var buf []byte
	for follower.EndOffset() < h.c.MetadataEndOffset() {
		var err error
		buf, err = h.c.ReadMetadata(buf[:0], follower.EndOffset(), 1) // one batch at a time
		if err != nil {
			t.Fatal(err)
		}
		if err := follower.ApplyBatches(buf); err != nil {
			t.Fatal(err)
		}
	}
	// Re-reading from the start is harmless: records below EndOffset are
	// skipped.
	all, err := h.c.ReadMetadata(nil, 0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if err := follower.ApplyBatches(all); err != nil {
		t.Fatal(err)
	}
	if !follower.Equal(h.c.Image()) {
		t.Fatalf("follower image:\n%scontroller image:\n%s", follower, h.c.Image())
	}
	if got, err := h.c.ReadMetadata(nil, h.c.MetadataEndOffset(), 100); err != nil || len(got) != 0 {
		t.Fatalf("reading at the end: %d bytes, %v", len(got), err)
	}
	if _, err := h.c.ReadMetadata(nil, h.c.MetadataEndOffset()+1, 100); !errors.Is(err, wire.ErrOffsetOutOfRange) {
		t.Fatalf("reading past the end: %v, want OFFSET_OUT_OF_RANGE", err)
	}
}

// ApplyBatches refuses a gap and a batch that does not decode.
func TestApplyBatchesRefusesGapsAndGarbage(t *testing.T) {
	rec, _ := TopicRecord{Name: "a", MinISR: 1}.AppendTo(nil)
	batch := func(base uint64) []byte {
		b, err := log.AppendBatch(nil, &log.Batch{BaseOffset: base, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, Records: []log.Record{{Value: rec}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if err := NewImage().ApplyBatches(batch(1)); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("a batch at offset 1 applied to an empty image: %v, want a gap error", err)
	}
	b := batch(0)
	b[len(b)-1] ^= 0xff
	if err := NewImage().ApplyBatches(b); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("a corrupt batch: %v, want ErrBadRecord", err)
	}
	im := NewImage()
	if err := im.ApplyBatches(append(batch(0), batch(0)...)); err != nil || im.EndOffset() != 1 {
		t.Fatalf("a batch applied twice: %v, end %d; want the second skipped", err, im.EndOffset())
	}
}

// A PartitionChangeRecord written out with its three reassignment lists all
// empty is not canonical (they are left out then): refused.
func TestAChangeRecordWithEmptyReassignmentListsIsRefused(t *testing.T) {
	b, err := PartitionChangeRecord{Topic: "orders", ISR: []int32{1}, Leader: 1, PartitionEpoch: 1}.AppendTo(nil)
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, 0, 0, 0, 0, 0, 0) // three empty id lists
	if _, err := DecodeRecord(b); !errors.Is(err, ErrBadRecord) {
		t.Fatalf("decoding: %v, want ErrBadRecord", err)
	}
}
