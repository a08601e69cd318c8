package domain_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

// Sandbox messages always reach read; counted apart, they neither inflate
// the live read rate nor hide live failures.
func TestNewModeStats(t *testing.T) {
	t.Parallel()
	counts := map[domain.KeyMode]map[domain.MessageStatus]int{
		domain.ModeLive: {domain.StatusDelivered: 3, domain.StatusRead: 1, domain.StatusFailed: 4},
		domain.ModeTest: {domain.StatusRead: 10},
	}
	all, byMode := domain.NewModeStats(counts, map[domain.FailureKey]int{{Code: 131026}: 4})
	want := domain.NewCampaignStats(map[domain.MessageStatus]int{domain.StatusDelivered: 3, domain.StatusRead: 11,
		domain.StatusFailed: 4}, map[domain.FailureKey]int{{Code: 131026}: 4})
	opt := cmp.AllowUnexported(domain.MessageStatus{})
	if diff := cmp.Diff(want, all, opt); diff != "" {
		t.Errorf("all modes (-want +got):\n%s", diff)
	}
	if l := byMode.Live; l.Total != 8 || l.DeliveryRate != 0.5 || l.ReadRate != 0.25 || l.Counts[domain.StatusFailed] != 4 {
		t.Errorf("live: %+v; want 8 messages, delivery 0.5, read 0.25, 4 failed", l)
	}
	if s := byMode.Test; s.Total != 10 || s.DeliveryRate != 1 || s.ReadRate != 1 || s.Counts[domain.StatusFailed] != 0 {
		t.Errorf("test: %+v; want 10 messages, all read", s)
	}
	if _, none := domain.NewModeStats(nil, nil); none.Live.Total != 0 || none.Test.Total != 0 || len(none.Live.Counts) != 6 {
		t.Errorf("no messages: %+v; want zero counts for every status", none)
	}
}
