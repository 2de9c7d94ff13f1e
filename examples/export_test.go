package examples

// WithFetchesPerRound returns cfg running n fetches per round in the first
// section, for the demo's own test of its self-check.
func WithFetchesPerRound(cfg Config, n int) Config {
	cfg.fetchesPerRound = n
	return cfg
}
