package client

import "context"

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

// AwaitLeaderOtherThan waits until c's metadata names a leader of tp other
// than old, and returns it.
func AwaitLeaderOtherThan(ctx context.Context, c *Client, tp TopicPartition, old int32) (int32, error) {
	for {
		seen := c.meta.next()
		if id, _, _, err := c.meta.leader(tp); err == nil && id != old {
			return id, nil
		}
		if err := c.meta.wait(ctx, seen); err != nil {
			return 0, err
		}
	}
}
