package log

// SizeBytes is the bytes of whole batches the log's segments hold, as
// Kafka's kafka.log:type=Log,name=Size reports it (its indexes not
// counted). A segment whose size Open did not learn is asked of its file
// once; an error doing so fails the log, as any failed read of its files.
func (l *Log) SizeBytes() (int64, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if err := l.usable(); err != nil {
		return 0, err
	}
	var total int64
	for _, s := range l.segments {
		size, err := l.sizeOf(s)
		if err != nil {
			return 0, err
		}
		total += size
	}
	return total, nil
}
