package replica

import (
	"github.com/kaenlog/kaenlog/replica/group"
	"github.com/kaenlog/kaenlog/replica/internal/mutation"
)

// The simulator's switch for the unsafe forms of the group coordinator's
// rules (replica/internal/mutation): an unexported field of BrokerConfig,
// which only packages under replica/ can set, through mutation.Set.
func init() {
	mutation.Set = func(cfg any, rules mutation.Rules) { cfg.(*BrokerConfig).mutations = rules }
}

// offsetCommitsOnly reports whether w writes committed offsets only (an
// OffsetCommit's write), for mutation.Rules.CommitBeforeReplicated.
func offsetCommitsOnly(w group.Write) bool {
	for _, rec := range w.Records {
		if k, ok, err := group.DecodeKey(rec.Key); err != nil || !ok || k.IsGroup || rec.Value == nil {
			return false
		}
	}
	return len(w.Records) > 0
}
