package metrics_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kaenlog/kaenlog/replica/metrics"
)

// TestWriteTextWritesPrometheusTextFormat004 pins the bytes: HELP and TYPE
// lines, labels with their values escaped, a histogram's cumulative
// buckets, +Inf, _sum and _count.
func TestWriteTextWritesPrometheusTextFormat004(t *testing.T) {
	var lat metrics.Latency
	for _, ms := range []int64{0, 3, 3, 40, 99999} {
		lat.Observe(ms)
	}
	fams := []metrics.Family{
		metrics.GaugeOf("kaenlog_under_replicated_partitions", "Partitions led here whose ISR is smaller than their replicas.", 2),
		{Name: "kaenlog_requests_total", Help: "Requests handled, by API.\nA second line \\ with a backslash.", Kind: metrics.Counter, Samples: []metrics.Sample{
			{Labels: []metrics.Label{{Name: "api", Value: "Produce"}}, Value: 7},
			{Labels: []metrics.Label{{Name: "api", Value: `odd "name"` + "\n"}}, Value: 1},
		}},
		{Name: "kaenlog_request_latency_ms", Help: "Request latency.", Kind: metrics.Histogram, Samples: []metrics.Sample{
			lat.Sample(metrics.Label{Name: "api", Value: "Fetch"}),
		}},
	}
	var buf bytes.Buffer
	if err := metrics.WriteText(&buf, fams); err != nil {
		t.Fatal(err)
	}
	want := `# HELP kaenlog_under_replicated_partitions Partitions led here whose ISR is smaller than their replicas.
# TYPE kaenlog_under_replicated_partitions gauge
kaenlog_under_replicated_partitions 2
# HELP kaenlog_requests_total Requests handled, by API.\nA second line \\ with a backslash.
# TYPE kaenlog_requests_total counter
kaenlog_requests_total{api="Produce"} 7
kaenlog_requests_total{api="odd \"name\"\n"} 1
# HELP kaenlog_request_latency_ms Request latency.
# TYPE kaenlog_request_latency_ms histogram
kaenlog_request_latency_ms_bucket{api="Fetch",le="1"} 1
kaenlog_request_latency_ms_bucket{api="Fetch",le="2"} 1
kaenlog_request_latency_ms_bucket{api="Fetch",le="5"} 3
kaenlog_request_latency_ms_bucket{api="Fetch",le="10"} 3
kaenlog_request_latency_ms_bucket{api="Fetch",le="25"} 3
kaenlog_request_latency_ms_bucket{api="Fetch",le="50"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="100"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="250"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="500"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="1000"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="2500"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="5000"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="10000"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="30000"} 4
kaenlog_request_latency_ms_bucket{api="Fetch",le="+Inf"} 5
kaenlog_request_latency_ms_sum{api="Fetch"} 100045
kaenlog_request_latency_ms_count{api="Fetch"} 5
`
	if got := buf.String(); got != want {
		t.Errorf("WriteText wrote\n%s\nwant\n%s", got, want)
	}
}

// TestWriteTextRefusesWhatPrometheusCannotParse: bad names, a repeated
// family, an unknown kind and a histogram label named le are refused
// before a byte is written.
func TestWriteTextRefusesWhatPrometheusCannotParse(t *testing.T) {
	ok := metrics.GaugeOf("ok", "", 1)
	for name, fams := range map[string][]metrics.Family{
		"family name with a dash":  {ok, metrics.GaugeOf("kaenlog-bytes", "", 1)},
		"family name from a digit": {metrics.GaugeOf("1x", "", 1)},
		"family given twice":       {ok, ok},
		"unknown kind":             {{Name: "x", Kind: 9}},
		"label name with a colon": {{Name: "x", Kind: metrics.Gauge, Samples: []metrics.Sample{
			{Labels: []metrics.Label{{Name: "a:b", Value: "v"}}}}}},
		"reserved label name": {{Name: "x", Kind: metrics.Gauge, Samples: []metrics.Sample{
			{Labels: []metrics.Label{{Name: "__name__", Value: "v"}}}}}},
		"le on a histogram": {{Name: "x", Kind: metrics.Histogram, Samples: []metrics.Sample{
			{Labels: []metrics.Label{{Name: "le", Value: "1"}}}}}},
	} {
		var buf bytes.Buffer
		err := metrics.WriteText(&buf, fams)
		if err == nil || !strings.HasPrefix(err.Error(), "metrics: ") || buf.Len() != 0 {
			t.Errorf("%s: err %v, wrote %q; want a refusal and nothing written", name, err, buf.String())
		}
	}
}
