package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func newCampaign(t *testing.T, header domain.HeaderFormat) domain.Campaign {
	t.Helper()
	tmpl, err := domain.NewTemplate("promo", "en", header, "", "Hi {{1}}", "", []string{"First name"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := domain.NewCampaign("cmp_x", "wsp_x", " Promo ", tmpl, t0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func activeCampaign(t *testing.T, header domain.HeaderFormat) domain.Campaign {
	t.Helper()
	c := newCampaign(t, header)
	if err := c.Activate(t0); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewCampaign(t *testing.T) {
	t.Parallel()
	c := newCampaign(t, domain.HeaderNone)
	if c.Status != domain.CampaignDraft || c.Name != "Promo" || !c.CreatedAt.Equal(t0) || !c.UpdatedAt.Equal(t0) {
		t.Fatalf("new campaign %+v: want a draft named Promo created at %v", c, t0)
	}
	tmpl := c.Template
	for _, name := range []string{"", "   ", strings.Repeat("n", 201), "bad \xff"} {
		if _, err := domain.NewCampaign("cmp_x", "wsp_x", name, tmpl, t0); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("name %q: %v, want invalid_parameter", name, err)
		}
	}
	if _, err := domain.NewCampaign("cmp_x", "wsp_x", "Promo", domain.Template{}, t0); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Errorf("no template: %v, want invalid_parameter", err)
	}
}

func TestCampaignTransitions(t *testing.T) {
	t.Parallel()
	activate := func(c *domain.Campaign, at time.Time) error { return c.Activate(at) }
	pause := func(c *domain.Campaign, at time.Time) error { return c.Pause(at) }
	archive := func(c *domain.Campaign, at time.Time) error { return c.Archive(at) }
	cases := []struct {
		name  string
		from  domain.CampaignStatus
		do    func(*domain.Campaign, time.Time) error
		to    domain.CampaignStatus // the status after; from when refused or a no-op
		moved bool                  // UpdatedAt moves
		err   error
	}{
		{"draft to active", domain.CampaignDraft, activate, domain.CampaignActive, true, nil},
		{"active to paused", domain.CampaignActive, pause, domain.CampaignPaused, true, nil},
		{"paused to active", domain.CampaignPaused, activate, domain.CampaignActive, true, nil},
		{"activate twice is a no-op", domain.CampaignActive, activate, domain.CampaignActive, false, nil},
		{"pause twice is a no-op", domain.CampaignPaused, pause, domain.CampaignPaused, false, nil},
		{"draft cannot be paused", domain.CampaignDraft, pause, domain.CampaignDraft, false, domain.ErrInvalidTransition},
		{"draft to archived", domain.CampaignDraft, archive, domain.CampaignArchived, true, nil},
		{"active to archived", domain.CampaignActive, archive, domain.CampaignArchived, true, nil},
		{"archived cannot be activated", domain.CampaignArchived, activate, domain.CampaignArchived, false, domain.ErrInvalidTransition},
		{"archived cannot be paused", domain.CampaignArchived, pause, domain.CampaignArchived, false, domain.ErrInvalidTransition},
		{"archive twice is a no-op", domain.CampaignArchived, archive, domain.CampaignArchived, false, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			camp := newCampaign(t, domain.HeaderNone)
			camp.Status = c.from
			later := t0.Add(time.Hour)
			err := c.do(&camp, later)
			if !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, c.err)
			}
			if camp.Status != c.to {
				t.Fatalf("status %s, want %s", camp.Status, c.to)
			}
			if wantAt := map[bool]time.Time{true: later, false: t0}[c.moved]; !camp.UpdatedAt.Equal(wantAt) {
				t.Fatalf("updated at %v, want %v", camp.UpdatedAt, wantAt)
			}
		})
	}
	camp := newCampaign(t, domain.HeaderNone)
	camp.Status = domain.CampaignArchived
	var de *domain.Error
	if err := camp.Activate(t0); !errors.As(err, &de) || de.Detail != "a campaign cannot go from archived to active" {
		t.Fatalf("refused transition: %v, want a detail naming both statuses", err)
	}
}

func TestParseCampaignStatus(t *testing.T) {
	t.Parallel()
	for _, s := range []domain.CampaignStatus{domain.CampaignDraft, domain.CampaignActive, domain.CampaignPaused, domain.CampaignArchived} {
		if got, err := domain.ParseCampaignStatus(s.String()); err != nil || got != s {
			t.Errorf("ParseCampaignStatus(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := domain.ParseCampaignStatus("Active"); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Errorf("ParseCampaignStatus(Active): %v, want invalid_parameter", err)
	}
}

func TestPrepare(t *testing.T) {
	t.Parallel()
	const png = "https://cdn.example.com/a.png"
	draft := newCampaign(t, domain.HeaderImage)
	paused := activeCampaign(t, domain.HeaderImage)
	if err := paused.Pause(t0); err != nil {
		t.Fatal(err)
	}
	image := activeCampaign(t, domain.HeaderImage)
	video := activeCampaign(t, domain.HeaderVideo)
	document := activeCampaign(t, domain.HeaderDocument)
	plain := activeCampaign(t, domain.HeaderNone)
	cases := []struct {
		name  string
		c     domain.Campaign
		vars  []string
		media string
		want  error
		param string
	}{
		// Check order: active, then variables, then the media header.
		{"draft with wrong variables and bad media", draft, nil, "http://x", domain.ErrCampaignNotActive, "campaignId"},
		{"paused with wrong variables and bad media", paused, nil, "http://x", domain.ErrCampaignNotActive, "campaignId"},
		{"active with wrong variables and bad media", image, nil, "http://x", domain.ErrVariablesMismatch, "variables"},
		{"active with an empty variable and no media", image, []string{" "}, "", domain.ErrVariablesMismatch, "variables[0]"},
		{"media header missing", image, []string{"Ana"}, "", domain.ErrMediaHeaderRequired, "mediaHeaderUrl"},
		{"media URL not https", image, []string{"Ana"}, "http://cdn.example.com/a.png", domain.ErrInvalidMediaURL, "mediaHeaderUrl"},
		{"media for a template without one", plain, []string{"Ana"}, png, domain.ErrMediaHeaderNotAllowed, "mediaHeaderUrl"},
		{"image", image, []string{"Ana"}, png, nil, ""},
		{"video", video, []string{"Ana"}, "https://cdn.example.com/a.mp4", nil, ""},
		{"document", document, []string{"Ana"}, "https://cdn.example.com/a.pdf", nil, ""},
		{"no header", plain, []string{"Ana"}, "", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, err := c.c.Prepare(c.vars, c.media, domain.MediaPolicy{})
			if c.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				want := domain.Prepared{Variables: c.vars, MediaHeaderURL: c.media, RenderedBody: "Hi Ana"}
				if len(p.Values) == 0 || p.Values[0].Slot.Key != "body.1" || p.Values[0].Value != "Ana" {
					t.Fatalf("values %+v, want body.1 = Ana first", p.Values)
				}
				p.Values = nil
				if diff := cmp.Diff(want, p); diff != "" {
					t.Fatalf("prepared (-want +got):\n%s", diff)
				}
				return
			}
			var de *domain.Error
			if !errors.Is(err, c.want) || !errors.As(err, &de) || de.Param != c.param {
				t.Fatalf("err %v, want %v on %s", err, c.want, c.param)
			}
			if diff := cmp.Diff(domain.Prepared{}, p); diff != "" {
				t.Fatalf("a refused send was prepared:\n%s", diff)
			}
		})
	}
	var de *domain.Error
	if _, err := image.Prepare([]string{"Ana"}, "", domain.MediaPolicy{}); !errors.As(err, &de) || !strings.Contains(de.Detail, "image header") {
		t.Errorf("media_header_required %v: the detail should name the header format", err)
	}
	if _, err := paused.Prepare([]string{"Ana"}, png, domain.MediaPolicy{}); !errors.As(err, &de) || !strings.Contains(de.Detail, "paused") {
		t.Errorf("campaign_not_active %v: the detail should name the status", err)
	}
}

func TestCheckMediaURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url, detail string // empty detail: accepted
	}{
		{"https://cdn.example.com/a.jpg", ""},
		{"https://cdn.example.com:8443/images/a.jpg?v=2#top", ""},
		{"HTTPS://CDN.example.com/a.jpg", ""},
		{"https://93.184.215.14/a.png", ""},
		{"https://[2606:4700::6810:84e5]/a.png", ""},
		{"https://cdn.example.com./a.jpg", ""},
		{"", "absolute https URL"},
		{"/a.jpg", "absolute https URL"},
		{"cdn.example.com/a.jpg", "absolute https URL"},
		{"//cdn.example.com/a.jpg", "absolute https URL"},
		{"https://", "absolute https URL"},
		{"https:///a.jpg", "absolute https URL"},
		{"https://./a.jpg", "absolute https URL"},
		{"https://cdn.example.com/%zz", "absolute https URL"},
		{"http://cdn.example.com/a.jpg", "must use https"},
		{"ftp://cdn.example.com/a.jpg", "must use https"},
		{"file:///etc/passwd", "absolute https URL"},
		{"https://user:pass@cdn.example.com/a.jpg", "must not carry credentials"},
		{"https://user@cdn.example.com/a.jpg", "must not carry credentials"},
		{"https://localhost/a.jpg", "public host"},
		{"https://LOCALHOST./a.jpg", "public host"},
		{"https://img.localhost/a.jpg", "public host"},
		{"https://127.0.0.1/a.jpg", "public address"},
		{"https://127.0.0.1./a.jpg", "public address"},
		{"https://10.1.2.3/a.jpg", "public address"},
		{"https://172.16.0.1/a.jpg", "public address"},
		{"https://192.168.1.1/a.jpg", "public address"},
		{"https://169.254.169.254/latest/meta-data", "public address"},
		{"https://0.0.0.0/a.jpg", "public address"},
		{"https://224.0.0.1/a.jpg", "public address"},
		{"https://255.255.255.255/a.jpg", "public address"},
		{"https://[::1]/a.jpg", "public address"},
		{"https://[::]/a.jpg", "public address"},
		{"https://[::ffff:127.0.0.1]/a.jpg", "public address"},
		{"https://[::ffff:10.0.0.1]/a.jpg", "public address"},
		{"https://[fe80::1]/a.jpg", "public address"},
		{"https://[fe80::1%25eth0]/a.jpg", "public address"},
		{"https://[fc00::1]/a.jpg", "public address"},
		// Other spellings of 127.0.0.1 that WHATWG URL parsers accept.
		{"https://127.1/a.jpg", "standard dotted form"},
		{"https://2130706433/a.jpg", "standard dotted form"},
		{"https://0x7f000001/a.jpg", "standard dotted form"},
		{"https://0X7F.0.0.1/a.jpg", "standard dotted form"},
		{"https://0177.0.0.1/a.jpg", "standard dotted form"},
		{"https://127.000.000.001/a.jpg", "standard dotted form"},
		{"https://cdn.example.com/" + strings.Repeat("a", 2048), "longer than 2048"},
	}
	for _, c := range cases {
		err := domain.CheckMediaURL(c.url, domain.MediaPolicy{})
		if c.detail == "" {
			if err != nil {
				t.Errorf("CheckMediaURL(%q): %v", c.url, err)
			}
			continue
		}
		var de *domain.Error
		if !errors.Is(err, domain.ErrInvalidMediaURL) || !errors.As(err, &de) || de.Param != "mediaHeaderUrl" || !strings.Contains(de.Detail, c.detail) {
			t.Errorf("CheckMediaURL(%q): %v, want invalid_media_url saying %q", c.url, err, c.detail)
		}
	}
}
