package metrics_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/heraldhq/herald/adapters/metrics"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

type queueStats struct {
	s   ports.QueueStats
	err error
}

func (q queueStats) QueueStats(context.Context) (ports.QueueStats, error) { return q.s, q.err }

// Labels stay bounded whatever the input: an undocumented Meta code is
// "other", a made-up method "other", an unmatched route "unmatched".
func TestLabelsStayBounded(t *testing.T) {
	t.Parallel()
	m := metrics.New(nil, fixedClock{})
	m.MessageStatus(domain.ModeLive, domain.StatusFailed, &domain.Failure{Code: 131026})
	m.MessageStatus(domain.ModeLive, domain.StatusFailed, &domain.Failure{Code: 987654321})
	m.MessageStatus(domain.ModeTest, domain.StatusFailed, &domain.Failure{HeraldCode: domain.CodeContactOptedOut})
	m.HTTPRequest("", "BREW", 404, time.Millisecond)
	m.HTTPRequest("GET /v1/campaigns", "GET", 200, time.Millisecond)
	m.EventDelivery("teapot", time.Millisecond)
	want := `
# HELP herald_messages_failed_total Messages failed, by mode, Meta's error code ("other" beyond the documented ones, "none" without one) and Herald's ("none" without one).
# TYPE herald_messages_failed_total counter
herald_messages_failed_total{herald_code="contact_opted_out",meta_code="none",mode="test"} 1
herald_messages_failed_total{herald_code="none",meta_code="131026",mode="live"} 1
herald_messages_failed_total{herald_code="none",meta_code="other",mode="live"} 1
# HELP herald_http_requests_total API and dashboard requests, by route pattern ("unmatched" when none matched), method and status.
# TYPE herald_http_requests_total counter
herald_http_requests_total{method="GET",route="GET /v1/campaigns",status="200"} 1
herald_http_requests_total{method="other",route="unmatched",status="404"} 1
# HELP herald_event_deliveries_total Attempts to deliver events to customers' endpoints, by result (2xx, 3xx, 4xx, 5xx, error).
# TYPE herald_event_deliveries_total counter
herald_event_deliveries_total{result="error"} 1
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want),
		"herald_messages_failed_total", "herald_http_requests_total", "herald_event_deliveries_total"); err != nil {
		t.Error(err)
	}
}

// The queue's gauges are read at the scrape: depth, and how long the most
// overdue message has waited; a store that fails leaves them out and
// counts the failure.
func TestQueueGaugesReadAtTheScrape(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := metrics.New(queueStats{s: ports.QueueStats{Depth: 7, OldestDue: now.Add(-90 * time.Second)}}, fixedClock{now})
	want := `
# HELP herald_queue_depth Messages waiting to be sent (queued, due for a retry, or being sent), read from the store at the scrape.
# TYPE herald_queue_depth gauge
herald_queue_depth 7
# HELP herald_queue_oldest_age_seconds How long the most overdue waiting message has been due (0 when none is overdue), read from the store at the scrape.
# TYPE herald_queue_oldest_age_seconds gauge
herald_queue_oldest_age_seconds 90
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), "herald_queue_depth", "herald_queue_oldest_age_seconds"); err != nil {
		t.Error(err)
	}

	failing := metrics.New(queueStats{err: errors.New("store unavailable")}, fixedClock{now})
	n, err := testutil.GatherAndCount(failing.Registry(), "herald_queue_depth", "herald_queue_oldest_age_seconds")
	if err != nil || n != 0 {
		t.Errorf("with a failing store: %d queue samples (%v), want none", n, err)
	}
	// A scrape gathers its collectors concurrently, so the error its own
	// read counts may be gathered before or after it is counted: after two
	// finished scrapes the third sees 2, or 3 with its own.
	failingErrors(t, failing)
	if got := failingErrors(t, failing); got < 2 || got > 3 {
		t.Errorf("queue read errors after two scrapes: %v, want 2 (3 counting this one)", got)
	}
}

func failingErrors(t *testing.T, m *metrics.Metrics) float64 {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "herald_queue_stats_errors_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatal("no herald_queue_stats_errors_total")
	return 0
}
