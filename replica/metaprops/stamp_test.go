package metaprops

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/log/vfs"
	"github.com/kaenlog/kaenlog/wire"
)

func TestAStampRoundTripsInKafkasFormat(t *testing.T) {
	p := Properties{ClusterID: "MkU3OEVBNTcwNTJENDM2Qk", NodeID: 3, Role: RoleBroker}
	text := string(p.Append(nil))
	for _, line := range []string{"version=1\n", "cluster.id=MkU3OEVBNTcwNTJENDM2Qk\n", "node.id=3\n", "process.roles=broker\n"} {
		if !strings.Contains(text, line) {
			t.Errorf("stamp %q lacks line %q", text, line)
		}
	}
	got, err := Parse([]byte(text))
	if err != nil || got != p {
		t.Fatalf("Parse(Append(%v)) = %v, %v", p, got, err)
	}
	// Kafka's own file, as kafka-storage format writes it, with a key
	// kaenlog does not use, and the role added.
	kafka := "#\n#Thu Jan 01 00:00:00 UTC 2025\nnode.id=1\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\nversion=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\nprocess.roles = controller\n"
	if got, err := Parse([]byte(kafka)); err != nil || got != (Properties{ClusterID: "MkU3OEVBNTcwNTJENDM2Qk", NodeID: 1, Role: RoleController}) {
		t.Fatalf("Parse(Kafka's file) = %v, %v", got, err)
	}
}

func TestABadStampIsRefused(t *testing.T) {
	for name, text := range map[string]string{
		"version 0":        "version=0\nbroker.id=3\n",
		"no version":       "node.id=3\nprocess.roles=broker\n",
		"no node.id":       "version=1\nprocess.roles=broker\n",
		"no role":          "version=1\nnode.id=3\n",
		"combined role":    "version=1\nnode.id=3\nprocess.roles=broker,controller\n",
		"negative node.id": "version=1\nnode.id=-3\nprocess.roles=broker\n",
		"node.id 03":       "version=1\nnode.id=03\nprocess.roles=broker\n",
		"repeated key":     "version=1\nnode.id=3\nnode.id=9\nprocess.roles=broker\n",
		"no =":             "version=1\nnode.id 3\nprocess.roles=broker\n",
		"empty cluster.id": "version=1\ncluster.id=\nnode.id=3\nprocess.roles=broker\n",
		"bad cluster.id":   "version=1\ncluster.id=a b\nnode.id=3\nprocess.roles=broker\n",
		"too large":        "version=1\nnode.id=3\nprocess.roles=broker\n#" + strings.Repeat("x", MaxFileBytes),
	} {
		if _, err := Parse([]byte(text)); !errors.Is(err, ErrBadFile) || wire.CodeOf(err) != wire.CodeCorruptMessage {
			t.Errorf("%s: Parse = %v, want ErrBadFile (CORRUPT_MESSAGE)", name, err)
		}
	}
}

func TestReadBoundsTheFileBeforeReadingIt(t *testing.T) {
	fsys := vfs.NewMem()
	if err := fsys.MkdirAll("d", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := fsys.OpenFile("d/"+FileName, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(make([]byte, MaxFileBytes+1), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, _, err := Read(fsys, "d"); !errors.Is(err, ErrBadFile) {
		t.Fatalf("Read of a %d-byte stamp = %v, want ErrBadFile", MaxFileBytes+1, err)
	}
}

// A directory is stamped at its first start; a later start with another
// identity is refused, naming both.
func TestAStartWhoseIdentityDisagreesWithTheStampIsRefused(t *testing.T) {
	fsys := vfs.NewMem()
	b3 := Properties{NodeID: 3, Role: RoleBroker}
	got, wrote, err := Ensure(fsys, "data/b3", b3)
	if err != nil || !wrote || got != b3 {
		t.Fatalf("first start: %v, wrote %t, %v", got, wrote, err)
	}
	if got, wrote, err := Ensure(fsys, "data/b3", b3); err != nil || wrote || got != b3 {
		t.Fatalf("second start: %v, wrote %t, %v", got, wrote, err)
	}
	_, _, err = Ensure(fsys, "data/b3", Properties{NodeID: 9, Role: RoleBroker})
	if !errors.Is(err, ErrInconsistentNode) || !strings.Contains(err.Error(), "broker 3") || !strings.Contains(err.Error(), "broker 9") {
		t.Fatalf("-id 9 on broker 3's directory: %v, want ErrInconsistentNode naming 3 and 9", err)
	}
	_, _, err = Ensure(fsys, "data/b3", Properties{NodeID: 3, Role: RoleController, ClusterID: "c1"})
	if !errors.Is(err, ErrInconsistentNode) || !strings.Contains(err.Error(), "controller") {
		t.Fatalf("a controller on broker 3's directory: %v, want ErrInconsistentNode", err)
	}

	// The broker learns its cluster: the stamp gains it, and keeps it.
	withCluster := Properties{ClusterID: "c1", NodeID: 3, Role: RoleBroker}
	if got, wrote, err := Ensure(fsys, "data/b3", withCluster); err != nil || !wrote || got != withCluster {
		t.Fatalf("learning the cluster: %v, wrote %t, %v", got, wrote, err)
	}
	if got, _, err := Ensure(fsys, "data/b3", b3); err != nil || got != withCluster {
		t.Fatalf("a start naming no cluster: %v, %v, want the stamped cluster", got, err)
	}
	_, _, err = Ensure(fsys, "data/b3", Properties{ClusterID: "c2", NodeID: 3, Role: RoleBroker})
	if !errors.Is(err, ErrInconsistentClusterID) || wire.CodeOf(err) != wire.CodeInconsistentClusterID ||
		!strings.Contains(err.Error(), "c1") || !strings.Contains(err.Error(), "c2") {
		t.Fatalf("another cluster: %v, want ErrInconsistentClusterID naming c1 and c2", err)
	}
}

// The stamp is replaced atomically: a power cut at any file operation of a
// rewrite leaves the old stamp or the new one, whole.
func TestAStampSurvivesAPowerCutAtAnyStepOfItsRewrite(t *testing.T) {
	old := Properties{NodeID: 3, Role: RoleBroker}
	updated := Properties{ClusterID: "c1", NodeID: 3, Role: RoleBroker}
	for n := 1; ; n++ {
		mem := vfs.NewMem()
		if _, _, err := Ensure(mem, "b3", old); err != nil {
			t.Fatal(err)
		}
		faulty := vfs.Faulty(mem)
		faulty.CutAt(n, errors.New("power cut"))
		_, _, err := Ensure(faulty, "b3", updated)
		mem.Crash(vfs.LoseUnsynced, uint64(n))
		got, ok, rerr := Read(mem, "b3")
		if rerr != nil || !ok || (got != old && got != updated) {
			t.Fatalf("cut at call %d: stamp %v, found %t, %v", n, got, ok, rerr)
		}
		if err == nil {
			if got != updated {
				t.Fatalf("Ensure succeeded, but after the crash the stamp is %v", got)
			}
			return
		}
	}
}
