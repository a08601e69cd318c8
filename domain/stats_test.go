package domain_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func TestCampaignStats(t *testing.T) {
	t.Parallel()
	var (
		queued, sendingS, sent = domain.StatusQueued, domain.StatusSending, domain.StatusSent
		delivered, read        = domain.StatusDelivered, domain.StatusRead
		failed                 = domain.StatusFailed
	)
	all := func(m map[domain.MessageStatus]int) map[domain.MessageStatus]int {
		out := map[domain.MessageStatus]int{queued: 0, sendingS: 0, sent: 0, delivered: 0, read: 0, failed: 0}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name     string
		counts   map[domain.MessageStatus]int
		failures map[int]int
		want     domain.CampaignStats
	}{
		{
			name: "nothing sent", counts: nil, failures: nil,
			want: domain.CampaignStats{Counts: all(nil), FailuresByCode: map[int]int{}},
		},
		{
			// Delivery: (delivered + read) / (sent + delivered + read + failed) = 3/5.
			// Read: read / (delivered + read) = 2/3. Queued and sending have
			// not left Herald and count in neither.
			name:     "every status",
			counts:   map[domain.MessageStatus]int{queued: 4, sendingS: 3, sent: 1, delivered: 1, read: 2, failed: 1},
			failures: map[int]int{131026: 1},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{queued: 4, sendingS: 3, sent: 1, delivered: 1, read: 2, failed: 1}),
				Total: 12, DeliveryRate: 3.0 / 5.0, ReadRate: 2.0 / 3.0, FailuresByCode: map[int]int{131026: 1}},
		},
		{
			name: "only queued", counts: map[domain.MessageStatus]int{queued: 7},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{queued: 7}), Total: 7, FailuresByCode: map[int]int{}},
		},
		{
			name: "all failed", counts: map[domain.MessageStatus]int{failed: 2}, failures: map[int]int{131026: 1, 0: 1},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{failed: 2}), Total: 2, FailuresByCode: map[int]int{131026: 1, 0: 1}},
		},
		{
			name: "all read", counts: map[domain.MessageStatus]int{read: 5},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{read: 5}), Total: 5, DeliveryRate: 1, ReadRate: 1, FailuresByCode: map[int]int{}},
		},
		{
			name: "delivered, none read", counts: map[domain.MessageStatus]int{sent: 1, delivered: 3},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{sent: 1, delivered: 3}), Total: 4, DeliveryRate: 0.75, FailuresByCode: map[int]int{}},
		},
	}
	for _, c := range cases {
		got := domain.NewCampaignStats(c.counts, c.failures)
		if diff := cmp.Diff(c.want, got, cmpStatus); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
