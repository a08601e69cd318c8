package metrics_test

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/metrics"
	"github.com/heraldhq/herald/domain"
)

// BenchmarkMetricsOfOneSend is what metrics cost one test message from its
// request to read: the request, the acceptance, four transactions, three
// statuses, the sandbox's call and three event deliveries, as the server
// counts them (parallel, as requests and workers count at once).
//
//	go test -run '^$' -bench MetricsOfOneSend -count 6 ./adapters/metrics/
func BenchmarkMetricsOfOneSend(b *testing.B) {
	m := metrics.New(nil, fixedClock{})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.HTTPRequest("POST /v1/messages/send-campaign", "POST", 202, 3*time.Millisecond)
			m.SendsAccepted(domain.ModeTest, 1)
			for range 4 {
				m.StoreTx(2*time.Millisecond, nil)
			}
			m.ProviderCall("sandbox", "ok", time.Millisecond)
			for _, s := range []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead} {
				m.MessageStatus(domain.ModeTest, s, nil)
				m.EventDelivery("2xx", 5*time.Millisecond)
			}
		}
	})
}
