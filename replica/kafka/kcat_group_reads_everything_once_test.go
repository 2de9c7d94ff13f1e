package kafka_test

import (
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"
)

// TestKcatGroupReadsEverythingAndTheSameCommandAgainReadsNothing: kcat
// 1.7.1 (librdkafka 2.0.2) as a balanced consumer, `kcat -G group topic
// -X auto.offset.reset=earliest -e`, reads every record of a 3-partition
// topic and exits at the end of its partitions, committing as it closes;
// the same command again reads nothing, and after more records only
// those. Issue 18's `-G group topic -o beginning -e` is not the command
// that resumes: with -G, kcat sets -o's offset on every partition it is
// assigned, over the committed one (kcat.c, rebalance_cb:
// `partitions->elems[i].offset = conf.offset` on
// RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS), so it reads everything every
// time whatever the broker; it still commits what it read, and the
// command without -o then reads nothing.
func TestKcatGroupReadsEverythingAndTheSameCommandAgainReadsNothing(t *testing.T) {
	needKcat(t)
	const topic = "clicks"
	c := startCluster(t, 3)
	c.createTopic(topic, 3, 3, 2)
	read := func(extra ...string) []string {
		args := append([]string{"-G", "tail", topic, "-X", "auto.offset.reset=earliest", "-e", "-f", "%p %o %s\n"}, extra...)
		out := kcat(t, c, "", args...)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if l != "" {
				got = append(got, l)
			}
		}
		sort.Strings(got)
		return got
	}
	wantOf := func(acked map[key]string) []string {
		var want []string
		for k, v := range acked {
			want = append(want, fmt.Sprintf("%d %d %s", k.partition, k.offset, v))
		}
		sort.Strings(want)
		return want
	}
	first := produceN(t, c, topic, "first", 60)
	if got, want := read(), wantOf(first); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the first run read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := read(); len(got) != 0 {
		t.Fatalf("the same command again read %d records: %q", len(got), got)
	}
	more := produceN(t, c, topic, "more", 9)
	if got, want := read(), wantOf(more); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after more records the command read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	all := maps.Clone(first)
	maps.Copy(all, more)
	if got, want := read("-o", "beginning"), wantOf(all); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("with -o beginning the command read\n%s\nwant every record (kcat's -o overrides the committed offsets)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := read(); len(got) != 0 {
		t.Fatalf("after the -o beginning run, the command without -o read %d records: %q", len(got), got)
	}
}
