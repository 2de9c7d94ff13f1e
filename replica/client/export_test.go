package client

// FetchesSent returns how many fetches c's consumers have sent.
func FetchesSent(c *Client) int64 { return c.fetches.Load() }

// WaitForFetch waits until c's consumers send their next fetch.
func WaitForFetch(c *Client) {
	c.mu.Lock()
	if c.fetchSent == nil {
		c.fetchSent = make(chan struct{})
	}
	ch := c.fetchSent
	c.mu.Unlock()
	<-ch
}

// Resends returns how many batches p has sent again.
func Resends(p *Producer) int64 { return p.resends.Load() }

// SetPrefetch turns the consumer's prefetch on or off and returns what it
// was.
func SetPrefetch(on bool) bool {
	was := prefetch
	prefetch = on
	return was
}
