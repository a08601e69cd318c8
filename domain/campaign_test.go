package domain_test

import (
	"errors"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func newCampaign(t *testing.T, header domain.HeaderFormat) domain.Campaign {
	t.Helper()
	tmpl, err := domain.NewTemplate("promo", "en", header, "", "Hi {{1}}", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := domain.NewCampaign("cmp_x", "wsp_x", "Promo", tmpl, t0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCampaignTransitions(t *testing.T) {
	t.Parallel()
	c := newCampaign(t, domain.HeaderNone)
	if c.Status != domain.CampaignDraft {
		t.Fatalf("a new campaign is %s, want draft", c.Status)
	}
	steps := []struct {
		do   func(*domain.Campaign) error
		want domain.CampaignStatus
	}{
		{func(c *domain.Campaign) error { return c.Activate(t0) }, domain.CampaignActive},
		{func(c *domain.Campaign) error { return c.Activate(t0) }, domain.CampaignActive},
		{func(c *domain.Campaign) error { return c.Pause(t0) }, domain.CampaignPaused},
		{func(c *domain.Campaign) error { return c.Activate(t0) }, domain.CampaignActive},
		{func(c *domain.Campaign) error { return c.Archive(t0) }, domain.CampaignArchived},
	}
	for i, s := range steps {
		if err := s.do(&c); err != nil || c.Status != s.want {
			t.Fatalf("step %d: %v, status %s want %s", i, err, c.Status, s.want)
		}
	}
	if err := c.Activate(t0); !errors.Is(err, domain.ErrInvalidTransition) || c.Status != domain.CampaignArchived {
		t.Fatalf("activating an archived campaign: %v (%s)", err, c.Status)
	}
}

func TestPrepareCheckOrder(t *testing.T) {
	t.Parallel()
	draft := newCampaign(t, domain.HeaderImage)
	if _, err := draft.Prepare(nil, "http://x"); !errors.Is(err, domain.ErrCampaignNotActive) {
		t.Fatalf("an inactive campaign with bad input: %v, want campaign_not_active first", err)
	}
	active := draft
	active.Activate(t0)
	if _, err := active.Prepare(nil, "http://x"); !errors.Is(err, domain.ErrVariablesMismatch) {
		t.Fatalf("bad variables and media: %v, want variables_mismatch first", err)
	}
	if _, err := active.Prepare([]string{"Ana"}, ""); !errors.Is(err, domain.ErrMediaHeaderRequired) {
		t.Fatalf("no media for an image header: %v", err)
	}
	p, err := active.Prepare([]string{"Ana"}, "https://cdn.example.com/a.png")
	if err != nil || p.RenderedBody != "Hi Ana" {
		t.Fatalf("good send: %v %+v", err, p)
	}
	plain := newCampaign(t, domain.HeaderNone)
	plain.Activate(t0)
	if _, err := plain.Prepare([]string{"Ana"}, "https://cdn.example.com/a.png"); !errors.Is(err, domain.ErrMediaHeaderNotAllowed) {
		t.Fatalf("media for a template without a media header: %v", err)
	}
}

func TestCheckMediaURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{
		"http://cdn.example.com/a.jpg", "ftp://cdn.example.com/a.jpg", "/a.jpg", "https://", "https://u:p@cdn.example.com/a.jpg",
		"https://localhost/a.jpg", "https://img.localhost/a.jpg", "https://127.0.0.1/a.jpg", "https://10.1.2.3/a.jpg",
		"https://192.168.1.1/a.jpg", "https://172.16.0.1/a.jpg", "https://169.254.169.254/latest", "https://[::1]/a.jpg",
		"https://[::ffff:127.0.0.1]/a.jpg", "https://0.0.0.0/a.jpg", "https://[fe80::1]/a.jpg",
	} {
		if err := domain.CheckMediaURL(u); !errors.Is(err, domain.ErrInvalidMediaURL) {
			t.Errorf("%s: %v, want invalid_media_url", u, err)
		}
	}
	for _, u := range []string{"https://cdn.example.com/a.jpg", "https://93.184.215.14/a.png"} {
		if err := domain.CheckMediaURL(u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}
