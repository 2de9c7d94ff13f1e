package server

import (
	"maps"
	"slices"
	"sync/atomic"

	"github.com/kaenlog/kaenlog/replica/metrics"
	"github.com/kaenlog/kaenlog/wire"
)

// hostStats are what the host counts of the requests it serves, for
// Metrics. The per-API figures are guarded by the node lock (they change
// where the node is called); the byte counts are counted outside it.
type hostStats struct {
	bytesIn, bytesOut atomic.Int64
	apis              map[wire.APIKey]*apiStats // under the node lock
}

type apiStats struct {
	requests uint64
	latency  metrics.Latency
}

func (s *hostStats) api(k wire.APIKey) *apiStats {
	a := s.apis[k]
	if a == nil {
		if s.apis == nil {
			s.apis = make(map[wire.APIKey]*apiStats)
		}
		a = new(apiStats)
		s.apis[k] = a
	}
	return a
}

// request counts a request read. The node lock is held.
func (s *hostStats) request(k wire.APIKey) { s.api(k).requests++ }

// answered counts a response, ms after its request reached the node: a
// refusal the host or its codec gave is counted here only. The node lock
// is held.
func (s *hostStats) answered(k wire.APIKey, ms int64) { s.api(k).latency.Observe(max(ms, 0)) }

// Metrics appends the host's metrics and its node's (a replica.Broker's,
// a replica.ControllerNode's: any node with a Metrics method of this
// signature) to dst, taken under the node lock, so they are one
// consistent snapshot:
//
//   - kaenlog_requests_total, labelled api: the requests read, acks=0
//     produces and requests refused without reaching the node included
//     (Kafka's RequestsPerSec, as a count);
//   - kaenlog_request_total_time_ms, labelled api: a histogram of the
//     time from a request reaching the node to its response being framed,
//     on the host's clock (Kafka's TotalTimeMs, less the time to read the
//     request and to write the response), refusals included;
//   - kaenlog_network_bytes_in_total and kaenlog_network_bytes_out_total:
//     the bytes of every frame read from and written to the host's
//     accepted connections, on every listener (Kafka's BytesInPerSec
//     and BytesOutPerSec count record bytes per topic instead);
//   - kaenlog_connections: the accepted connections open.
//
// The API label is kaenlog's name of the request (wire.APIKey.String),
// whichever listener it came through.
func (h *Host) Metrics(dst []metrics.Family) []metrics.Family {
	h.mu.Lock()
	defer h.mu.Unlock()
	reqs := metrics.Family{Name: "kaenlog_requests_total", Help: "Requests read from accepted connections, by API.", Kind: metrics.Counter}
	lat := metrics.Family{Name: "kaenlog_request_total_time_ms", Help: "Milliseconds from a request reaching the node to its response, by API.", Kind: metrics.Histogram}
	for _, k := range slices.Sorted(maps.Keys(h.stats.apis)) {
		a := h.stats.apis[k]
		api := metrics.Label{Name: "api", Value: k.String()}
		reqs.Samples = append(reqs.Samples, metrics.Sample{Labels: []metrics.Label{api}, Value: float64(a.requests)})
		lat.Samples = append(lat.Samples, a.latency.Sample(api))
	}
	dst = append(dst, reqs, lat,
		metrics.CounterOf("kaenlog_network_bytes_in_total", "Bytes of the frames read from accepted connections.", float64(h.stats.bytesIn.Load())),
		metrics.CounterOf("kaenlog_network_bytes_out_total", "Bytes of the frames written to accepted connections.", float64(h.stats.bytesOut.Load())),
		metrics.GaugeOf("kaenlog_connections", "Accepted connections open.", float64(len(h.inbound))),
	)
	if n, ok := h.node.(interface {
		Metrics([]metrics.Family) []metrics.Family
	}); ok {
		dst = n.Metrics(dst)
	}
	return dst
}
