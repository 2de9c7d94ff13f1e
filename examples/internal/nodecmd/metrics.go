package nodecmd

import (
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/kaenlog/kaenlog/replica/metrics"
)

// metricsFlagUsage is the -metrics-listen flag's usage, the same for
// every node.
const metricsFlagUsage = "serve the node's metrics in Prometheus' text format at http://host:port/metrics (port 0: any free port; default: none)"

// serveMetrics serves src's metrics at http://addr/metrics, for as long as
// the process lives (a node's process ends with its node), and announces
// it on stdout:
//
//	broker 1 metrics on http://127.0.0.1:40113/metrics
func serveMetrics(addr, who string, stdout io.Writer, src func([]metrics.Family) []metrics.Family) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("-metrics-listen: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", metrics.ContentType)
		if err := metrics.WriteText(w, src(nil)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
	go http.Serve(ln, mux)
	fmt.Fprintf(stdout, "%s metrics on http://%s/metrics\n", who, ln.Addr())
	return nil
}
