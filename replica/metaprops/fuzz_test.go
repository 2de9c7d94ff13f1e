package metaprops

import "testing"

// FuzzParse: Parse never panics, and what it accepts encodes back to a
// stamp it reads the same.
func FuzzParse(f *testing.F) {
	f.Add(Properties{ClusterID: "MkU3OEVBNTcwNTJENDM2Qk", NodeID: 3, Role: RoleBroker}.Append(nil))
	f.Add(Properties{NodeID: 0, Role: RoleController}.Append(nil))
	f.Add([]byte("#\nnode.id=1\ndirectory.id=x\nversion=1\n process.roles = broker \n"))
	f.Add([]byte("version=1\nnode.id=1\nnode.id=2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			return
		}
		again, err := Parse(p.Append(nil))
		if err != nil || again != p {
			t.Fatalf("Parse(%q) = %v, but its encoding parses as %v, %v", data, p, again, err)
		}
	})
}
