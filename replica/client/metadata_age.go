package client

// DefaultMetadataMaxAgeMs is Config.MetadataMaxAgeMs when 0: Kafka's
// metadata.max.age.ms, 5 minutes.
const DefaultMetadataMaxAgeMs = 5 * 60 * 1000

// The metadata's age is counted from the last refresh that succeeded, as
// Kafka counts it (Metadata.lastSuccessfulRefreshMs): each one restarts a
// timer of Config.MetadataMaxAgeMs on the client's clock, whose refresh
// takes its turn as any other (after one in flight, or the backoff).

// restartAgeLocked restarts the age timer after a successful refresh.
// m.mu is held.
func (m *metadata) restartAgeLocked() {
	m.stopAgeLocked()
	if m.closed {
		return
	}
	m.ageGen++
	gen := m.ageGen
	m.ageTimer = m.c.clock.AfterFunc(m.c.cfg.MetadataMaxAgeMs, func() { m.aged(gen) })
}

// aged refreshes the metadata that grew too old, unless a later refresh
// restarted the count (gen is then stale).
func (m *metadata) aged(gen uint64) {
	m.mu.Lock()
	if gen != m.ageGen {
		m.mu.Unlock()
		return
	}
	m.ageTimer = nil
	req, ok := m.startLocked()
	m.mu.Unlock()
	if ok {
		m.send(req)
	}
}

// stopAgeLocked stops the age timer. m.mu is held.
func (m *metadata) stopAgeLocked() {
	if m.ageTimer != nil {
		m.ageTimer.Stop()
		m.ageTimer = nil
	}
}
