package domain_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func ptr[T any](v T) *T { return &v }

func TestApplySync(t *testing.T) {
	t.Parallel()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.MustPhoneNumber("+14155552671"), t0)
	err := c.ApplySync(domain.ContactSync{Name: ptr(" Ana "), Email: ptr("ana@example.com"),
		Attributes: map[string]string{"plan": "pro", "city": "Lisbon"}, Tags: []string{"vip", "beta", "vip"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "Ana" || fmt.Sprint(c.Tags) != "[beta vip]" || len(c.Attributes) != 2 {
		t.Fatalf("after first sync: %+v", c)
	}
	if err := c.ApplySync(domain.ContactSync{Attributes: map[string]string{"city": "", "lang": "pt"}}, t0); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.Attributes) != "map[lang:pt plan:pro]" || c.Name != "Ana" || fmt.Sprint(c.Tags) != "[beta vip]" {
		t.Fatalf("attributes merge, empty removes, untouched fields stay: %+v", c)
	}
	before := fmt.Sprintf("%+v", c)
	if err := c.ApplySync(domain.ContactSync{Name: ptr("Bo"), Email: ptr("not an email")}, t0); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("bad email: %v", err)
	}
	if fmt.Sprintf("%+v", c) != before {
		t.Fatal("a refused sync changed the contact")
	}
	many := map[string]string{}
	for i := range 51 {
		many[fmt.Sprint("k", i)] = "v"
	}
	if err := c.ApplySync(domain.ContactSync{Attributes: many}, t0); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("51 attributes: %v", err)
	}
	if c.CanReceive() != nil {
		t.Fatal("a contact who did not opt out must receive")
	}
	c.ApplySync(domain.ContactSync{OptedOut: ptr(true)}, t0)
	if !errors.Is(c.CanReceive(), domain.ErrContactOptedOut) {
		t.Fatal("an opted-out contact must not receive")
	}
}

func TestIDs(t *testing.T) {
	t.Parallel()
	var e [10]byte
	a := domain.NewID(domain.PrefixMessage, t0, e)
	b := domain.NewID(domain.PrefixMessage, t0.Add(1e6), e)
	if len(a) != 30 || a >= b {
		t.Fatalf("ids %s %s: want 30 characters sorting by time", a, b)
	}
	if _, err := domain.ParseMessageID(a); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "msg_", "cmp" + a[3:], a[:29], a + "0", "msg_" + "ILOU" + a[8:], "MSG" + a[3:]} {
		if _, err := domain.ParseMessageID(bad); !errors.Is(err, domain.ErrMessageNotFound) {
			t.Errorf("%q: %v, want message_not_found", bad, err)
		}
	}
}

func TestCampaignStats(t *testing.T) {
	t.Parallel()
	s := domain.NewCampaignStats(map[domain.MessageStatus]int{
		domain.StatusQueued: 1, domain.StatusSent: 1, domain.StatusDelivered: 1, domain.StatusRead: 2, domain.StatusFailed: 1},
		map[int]int{131026: 1})
	if s.Total != 6 || s.DeliveryRate != 3.0/5.0 || s.ReadRate != 2.0/3.0 {
		t.Fatalf("stats %+v", s)
	}
	if z := domain.NewCampaignStats(nil, nil); z.FailuresByCode == nil || z.Total != 0 || z.DeliveryRate != 0 || z.ReadRate != 0 || len(z.Counts) != 6 {
		t.Fatalf("empty stats %+v", z)
	}
}

func TestErrorsCompareByCode(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("wrapped: %w", &domain.Error{Code: domain.CodeCampaignNotFound, Param: "campaignId", Detail: "x"})
	if !errors.Is(err, domain.ErrCampaignNotFound) || errors.Is(err, domain.ErrContactNotFound) {
		t.Fatal("errors.Is must compare codes")
	}
	seen := map[domain.Code]bool{}
	for _, c := range domain.Codes() {
		if seen[c] {
			t.Errorf("code %s listed twice", c)
		}
		seen[c] = true
	}
}
