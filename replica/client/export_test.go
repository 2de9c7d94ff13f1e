package client

import (
	"context"
	"errors"

	"github.com/kaenlog/kaenlog/wire"
)

// ServesInitProducerID reports whether the controller answers
// InitProducerId: false if it closes the connection instead (a controller
// or host that predates it).
func ServesInitProducerID(ctx context.Context, c *Client) (bool, error) {
	cn, err := c.controllerConn()
	if err != nil {
		return false, err
	}
	payload, err := c.roundTrip(ctx, cn, newInitProducerIDRequest(), 0)
	if errors.Is(err, wire.ErrNetworkException) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = decodeInitProducerID(payload)
	return err == nil, err
}

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
