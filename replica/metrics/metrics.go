package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ContentType is the HTTP Content-Type of what WriteText writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Kind is a family's metric type.
type Kind uint8

const (
	// Counter only grows (from the node's start): requests, bytes, ISR
	// shrinks.
	Counter Kind = iota + 1
	// Gauge goes up and down: partitions under-replicated, log size.
	Gauge
	// Histogram counts observations into cumulative buckets: request
	// latency.
	Histogram
)

func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case Gauge:
		return "gauge"
	case Histogram:
		return "histogram"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Family is one metric: its name, help text, kind and samples, one per
// distinct set of labels.
type Family struct {
	Name    string
	Help    string
	Kind    Kind
	Samples []Sample
}

// Label is one label of a sample: a partition's topic, an API's name.
type Label struct{ Name, Value string }

// Sample is one value of a family. A histogram's sample has Buckets, Sum
// and Count instead of Value.
type Sample struct {
	Labels []Label
	Value  float64
	// Buckets are a histogram's cumulative counts, by increasing upper
	// bound; the +Inf bucket is Count and is written without being
	// listed.
	Buckets []Bucket
	Sum     float64
	Count   uint64
}

// Bucket is a histogram bucket: how many observations were at most
// UpperBound.
type Bucket struct {
	UpperBound float64
	Count      uint64
}

// WriteText writes fams in Prometheus' text format, version 0.0.4: a
// HELP and a TYPE line per family, then its samples. It refuses a
// family or label name outside Prometheus' alphabet, a family name
// repeated, or an unknown kind, before writing anything.
func WriteText(w io.Writer, fams []Family) error {
	seen := make(map[string]bool, len(fams))
	for _, f := range fams {
		if !validName(f.Name, true) {
			return fmt.Errorf("metrics: family name %q is not [a-zA-Z_:][a-zA-Z0-9_:]*", f.Name)
		}
		if seen[f.Name] {
			return fmt.Errorf("metrics: family %q given twice", f.Name)
		}
		seen[f.Name] = true
		if f.Kind < Counter || f.Kind > Histogram {
			return fmt.Errorf("metrics: family %q: %v", f.Name, f.Kind)
		}
		for _, s := range f.Samples {
			for _, l := range s.Labels {
				if !validName(l.Name, false) || l.Name == "le" && f.Kind == Histogram {
					return fmt.Errorf("metrics: family %q: label name %q", f.Name, l.Name)
				}
			}
		}
	}
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		fmt.Fprintf(bw, "# HELP %s %s\n# TYPE %s %v\n", f.Name, escapeHelp(f.Help), f.Name, f.Kind)
		for _, s := range f.Samples {
			if f.Kind != Histogram {
				writeSample(bw, f.Name, s.Labels, "", s.Value)
				continue
			}
			for _, b := range s.Buckets {
				writeSample(bw, f.Name+"_bucket", s.Labels, formatFloat(b.UpperBound), float64(b.Count))
			}
			writeSample(bw, f.Name+"_bucket", s.Labels, "+Inf", float64(s.Count))
			writeSample(bw, f.Name+"_sum", s.Labels, "", s.Sum)
			writeSample(bw, f.Name+"_count", s.Labels, "", float64(s.Count))
		}
	}
	return bw.Flush()
}

func writeSample(w *bufio.Writer, name string, labels []Label, le string, v float64) {
	w.WriteString(name)
	if len(labels) > 0 || le != "" {
		w.WriteByte('{')
		for i, l := range labels {
			if i > 0 {
				w.WriteByte(',')
			}
			w.WriteString(l.Name)
			w.WriteString(`="`)
			w.WriteString(escapeLabel(l.Value))
			w.WriteByte('"')
		}
		if le != "" {
			if len(labels) > 0 {
				w.WriteByte(',')
			}
			w.WriteString(`le="`)
			w.WriteString(le)
			w.WriteByte('"')
		}
		w.WriteByte('}')
	}
	w.WriteByte(' ')
	w.WriteString(formatFloat(v))
	w.WriteByte('\n')
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string  { return helpEscaper.Replace(s) }
func escapeLabel(s string) string { return labelEscaper.Replace(s) }

// validName reports whether s is a metric name (colons allowed) or a
// label name (no colons, no leading __).
func validName(s string, metric bool) bool {
	if s == "" || !metric && strings.HasPrefix(s, "__") {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case c == ':' && metric:
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// latencyBoundsMs are the upper bounds, in milliseconds, of a Latency's
// buckets.
var latencyBoundsMs = [...]float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000}

// Latency accumulates latencies, in milliseconds, for a histogram sample
// with buckets of at most 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500,
// 5000, 10000 and 30000 ms. Its zero value is ready to use.
type Latency struct {
	counts [len(latencyBoundsMs) + 1]uint64 // per bucket, not cumulative; the last is +Inf's own
	sum    float64
	count  uint64
}

// Observe counts one latency of ms milliseconds.
func (h *Latency) Observe(ms int64) {
	h.sum += float64(ms)
	h.count++
	for i, b := range latencyBoundsMs {
		if float64(ms) <= b {
			h.counts[i]++
			return
		}
	}
	h.counts[len(latencyBoundsMs)]++
}

// Count is the number of latencies observed.
func (h *Latency) Count() uint64 { return h.count }

// Sample is the histogram as a sample with labels.
func (h *Latency) Sample(labels ...Label) Sample {
	s := Sample{Labels: labels, Sum: h.sum, Count: h.count, Buckets: make([]Bucket, len(latencyBoundsMs))}
	var cum uint64
	for i, b := range latencyBoundsMs {
		cum += h.counts[i]
		s.Buckets[i] = Bucket{UpperBound: b, Count: cum}
	}
	return s
}

// GaugeOf returns a family of one unlabelled gauge sample.
func GaugeOf(name, help string, v float64) Family {
	return Family{Name: name, Help: help, Kind: Gauge, Samples: []Sample{{Value: v}}}
}

// CounterOf returns a family of one unlabelled counter sample.
func CounterOf(name, help string, v float64) Family {
	return Family{Name: name, Help: help, Kind: Counter, Samples: []Sample{{Value: v}}}
}
