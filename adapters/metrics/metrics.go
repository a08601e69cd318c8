// Package metrics exports what Herald counts (ports.Metrics) to Prometheus
// with client_golang, on a registry of its own with the Go runtime and
// process collectors, and reads the send queue's depth and age from the
// store on each scrape (decision 0023). Every label is bounded: route
// patterns, methods, status codes, modes, message statuses, send-failure
// classes and error codes, Meta's capped to the codes it documents.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Names lists every metric family Herald itself exports (the Go runtime's
// and the process's come on top), for the checks of deploy/'s alert rules
// and dashboard.
func Names() []string {
	return []string{
		"herald_http_requests_total", "herald_http_request_duration_seconds",
		"herald_sends_accepted_total", "herald_messages_status_total", "herald_messages_failed_total",
		"herald_queue_depth", "herald_queue_oldest_age_seconds", "herald_queue_stats_errors_total",
		"herald_whatsapp_calls_total", "herald_whatsapp_call_duration_seconds",
		"herald_pacing_wait_seconds",
		"herald_webhook_events_received_total", "herald_webhook_events_applied_total", "herald_webhook_lag_seconds",
		"herald_event_deliveries_total", "herald_event_delivery_duration_seconds", "herald_webhook_endpoints_disabled_total",
		"herald_store_transaction_duration_seconds",
	}
}

// Metrics is the Prometheus side of ports.Metrics.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests  *prometheus.CounterVec
	httpDuration  *prometheus.HistogramVec
	accepted      *prometheus.CounterVec
	statuses      *prometheus.CounterVec
	failed        *prometheus.CounterVec
	calls         *prometheus.CounterVec
	callDuration  *prometheus.HistogramVec
	pacing        prometheus.Histogram
	received      *prometheus.CounterVec
	applied       *prometheus.CounterVec
	lag           prometheus.Histogram
	deliveries    *prometheus.CounterVec
	deliveryTime  *prometheus.HistogramVec
	disabled      prometheus.Counter
	txDuration    *prometheus.HistogramVec
	queueErrors   prometheus.Counter
	queueReadTime time.Duration
}

var _ ports.Metrics = (*Metrics)(nil)

// latency buckets, in seconds: from a cached read to a slow transaction.
var latency = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// New registers Herald's metrics, the Go runtime's and the process's on a
// registry of its own; queue (nil leaves the queue gauges out) is read on
// each scrape, at most queueTimeout long, with clock's time.
func New(queue ports.QueueStatsReader, clock ports.Clock) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), queueReadTime: 2 * time.Second}
	f := factory{m.reg}
	m.httpRequests = f.counter("herald_http_requests_total", "API and dashboard requests, by route pattern (\"unmatched\" when none matched), method and status.", "route", "method", "status")
	m.httpDuration = f.histogram("herald_http_request_duration_seconds", "How long requests took, by route pattern and method.", latency, "route", "method")
	m.accepted = f.counter("herald_sends_accepted_total", "Messages accepted for sending, by the key's mode.", "mode")
	m.statuses = f.counter("herald_messages_status_total", "Messages reaching each status, by mode.", "mode", "status")
	m.failed = f.counter("herald_messages_failed_total", "Messages failed, by mode, Meta's error code (\"other\" beyond the documented ones, \"none\" without one) and Herald's (\"none\" without one).", "mode", "meta_code", "herald_code")
	m.calls = f.counter("herald_whatsapp_calls_total", "Send calls to WhatsApp, by sender (live: Meta's Cloud API; sandbox) and outcome (ok, or the failure's class).", "sender", "outcome")
	m.callDuration = f.histogram("herald_whatsapp_call_duration_seconds", "How long send calls to WhatsApp took, by sender.", latency, "sender")
	m.pacing = f.plainHistogram("herald_pacing_wait_seconds", "How long live sends waited for the sender number's pace.",
		[]float64{.001, .005, .01, .05, .1, .5, 1, 5, 10})
	m.received = f.counter("herald_webhook_events_received_total", "Meta's webhook calls stored, by whether Meta had sent them before.", "duplicate")
	m.applied = f.counter("herald_webhook_events_applied_total", "Stored webhook events applied or failing to apply (tried again later).", "result")
	m.lag = f.plainHistogram("herald_webhook_lag_seconds", "From Meta's timestamp of a status to its application by Herald.",
		[]float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600})
	m.deliveries = f.counter("herald_event_deliveries_total", "Attempts to deliver events to customers' endpoints, by result (2xx, 3xx, 4xx, 5xx, error).", "result")
	m.deliveryTime = f.histogram("herald_event_delivery_duration_seconds", "How long event delivery attempts took, by result.", latency, "result")
	m.disabled = prometheus.NewCounter(prometheus.CounterOpts{Name: "herald_webhook_endpoints_disabled_total", Help: "Customers' webhook endpoints disabled after failing every attempt for HERALD_WEBHOOK_DISABLE_AFTER."})
	m.reg.MustRegister(m.disabled)
	m.txDuration = f.histogram("herald_store_transaction_duration_seconds", "How long the store's transactions took, waiting for a group commit included, by outcome (commit, rollback).", latency, "outcome")
	m.queueErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "herald_queue_stats_errors_total", Help: "Scrapes whose read of the queue's state failed (the queue gauges are then left out)."})
	m.reg.MustRegister(m.queueErrors)
	if queue != nil {
		m.reg.MustRegister(&queueCollector{m: m, queue: queue, clock: clock})
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in Prometheus's text (or OpenMetrics) format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg, EnableOpenMetrics: true})
}

// Registry is the registry the metrics are on (tests gather from it).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

type factory struct{ reg *prometheus.Registry }

func (f factory) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f factory) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	f.reg.MustRegister(h)
	return h
}

func (f factory) plainHistogram(name, help string, buckets []float64) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets})
	f.reg.MustRegister(h)
	return h
}

// HTTPRequest implements ports.Metrics.
func (m *Metrics) HTTPRequest(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	method = boundedMethod(method)
	m.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(route, method).Observe(d.Seconds())
}

// boundedMethod keeps the standard methods and calls any other "other": a
// client chooses the method, and routes that take any method would
// otherwise let it add labels.
func boundedMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// SendsAccepted implements ports.Metrics.
func (m *Metrics) SendsAccepted(mode domain.KeyMode, n int) {
	m.accepted.WithLabelValues(mode.String()).Add(float64(n))
}

// MessageStatus implements ports.Metrics.
func (m *Metrics) MessageStatus(mode domain.KeyMode, status domain.MessageStatus, f *domain.Failure) {
	m.statuses.WithLabelValues(mode.String(), status.String()).Inc()
	if status != domain.StatusFailed {
		return
	}
	meta, herald := "none", "none"
	if f != nil {
		if f.Code != 0 {
			meta = MetaCode(f.Code)
		}
		if f.HeraldCode != "" {
			herald = string(f.HeraldCode)
		}
	}
	m.failed.WithLabelValues(mode.String(), meta, herald).Inc()
}

// ProviderCall implements ports.Metrics.
func (m *Metrics) ProviderCall(sender, outcome string, d time.Duration) {
	m.calls.WithLabelValues(sender, outcome).Inc()
	m.callDuration.WithLabelValues(sender).Observe(d.Seconds())
}

// PacingWait implements ports.Metrics.
func (m *Metrics) PacingWait(d time.Duration) { m.pacing.Observe(d.Seconds()) }

// WebhookReceived implements ports.Metrics.
func (m *Metrics) WebhookReceived(duplicate bool) {
	m.received.WithLabelValues(strconv.FormatBool(duplicate)).Inc()
}

// WebhookApplied implements ports.Metrics.
func (m *Metrics) WebhookApplied(err error, lags []time.Duration) {
	if err != nil {
		m.applied.WithLabelValues("failed").Inc()
		return
	}
	m.applied.WithLabelValues("applied").Inc()
	for _, l := range lags {
		m.lag.Observe(max(l, 0).Seconds())
	}
}

// EventDelivery implements ports.Metrics.
func (m *Metrics) EventDelivery(result string, d time.Duration) {
	switch result {
	case "2xx", "3xx", "4xx", "5xx", "error":
	default:
		result = "error"
	}
	m.deliveries.WithLabelValues(result).Inc()
	m.deliveryTime.WithLabelValues(result).Observe(d.Seconds())
}

// EndpointDisabled implements ports.Metrics.
func (m *Metrics) EndpointDisabled() { m.disabled.Inc() }

// StoreTx implements ports.Metrics.
func (m *Metrics) StoreTx(d time.Duration, err error) {
	outcome := "commit"
	if err != nil {
		outcome = "rollback"
	}
	m.txDuration.WithLabelValues(outcome).Observe(d.Seconds())
}

// queueCollector reads the queue's state when Prometheus scrapes.
type queueCollector struct {
	m     *Metrics
	queue ports.QueueStatsReader
	clock ports.Clock
}

var (
	queueDepthDesc = prometheus.NewDesc("herald_queue_depth", "Messages waiting to be sent (queued, due for a retry, or being sent), read from the store at the scrape.", nil, nil)
	queueAgeDesc   = prometheus.NewDesc("herald_queue_oldest_age_seconds", "How long the most overdue waiting message has been due (0 when none is overdue), read from the store at the scrape.", nil, nil)
)

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- queueAgeDesc
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.m.queueReadTime)
	defer cancel()
	st, err := c.queue.QueueStats(ctx)
	if err != nil {
		c.m.queueErrors.Inc()
		return
	}
	age := 0.0
	if !st.OldestDue.IsZero() {
		age = max(c.clock.Now().Sub(st.OldestDue), 0).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(st.Depth))
	ch <- prometheus.MustNewConstMetric(queueAgeDesc, prometheus.GaugeValue, age)
}
