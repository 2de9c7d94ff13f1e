package examples

// WithFetchesPerRound returns cfg running n fetches per round in the first
// section, for the demo's own test of its self-check.
func WithFetchesPerRound(cfg Config, n int) Config {
	cfg.fetchesPerRound = n
	return cfg
}

// WithEarlyRound returns cfg running two fetch rounds before the cluster
// demo checks that an acks=all write is parked, for the demo's own test of
// its self-check.
func WithEarlyRound(cfg ClusterDemoConfig) ClusterDemoConfig {
	cfg.earlyRound = true
	return cfg
}
