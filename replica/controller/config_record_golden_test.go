package controller

import (
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.hex from the current encoders")

// TestConfigRecordGoldenEncodings pins the exact bytes of a ConfigRecord
// setting and one deleting a config. After an intended layout change:
// go test ./replica/controller -run ConfigRecordGolden -update
func TestConfigRecordGoldenEncodings(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Record
	}{
		{"config_record_set", ConfigRecord{ResourceType: ResourceTopic, ResourceName: "orders", Name: "retention.ms", Value: "60000"}},
		{"config_record_delete", ConfigRecord{ResourceType: ResourceTopic, ResourceName: "orders", Name: "cleanup.policy", Delete: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.r.AppendTo(nil)
			if err != nil {
				t.Fatal(err)
			}
			got := hex.Dump(b)
			path := filepath.Join("testdata", "golden", tc.name+".hex")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("encoding of %+v changed:\ngot\n%swant\n%s", tc.r, got, want)
			}
		})
	}
}
