package whatsapp_test

import (
	"testing"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		code, status int
		transient    bool
		want         ports.SendErrorClass
	}{
		{130429, 400, false, ports.ClassThrottled},
		{130429, 429, false, ports.ClassThrottled},
		{131056, 400, false, ports.ClassPairLimited},
		{190, 401, false, ports.ClassAuth},
		{10, 403, false, ports.ClassAuth},
		{200, 403, false, ports.ClassAuth},
		{131005, 403, false, ports.ClassAuth},
		{131000, 500, false, ports.ClassRetryable},
		{131016, 503, false, ports.ClassRetryable},
		{2, 503, false, ports.ClassRetryable},
		{80007, 400, false, ports.ClassRetryable},
		{131057, 500, false, ports.ClassRetryable},
		{132001, 404, false, ports.ClassPermanent},
		{132000, 400, false, ports.ClassPermanent},
		{132018, 400, false, ports.ClassPermanent},
		{131026, 400, false, ports.ClassPermanent},
		{100, 400, false, ports.ClassPermanent},
		{999999, 400, true, ports.ClassRetryable},
		{0, 502, false, ports.ClassRetryable},
		{0, 504, false, ports.ClassRetryable},
		{0, 0, false, ports.ClassRetryable},
		{0, 401, false, ports.ClassAuth},
		{0, 400, false, ports.ClassPermanent},
	} {
		if got, _ := whatsapp.Classify(c.code, c.status, c.transient); got != c.want {
			t.Errorf("code %d, HTTP %d, transient %v: %s, want %s", c.code, c.status, c.transient, got, c.want)
		}
	}
}

func TestTemplateStatusFor(t *testing.T) {
	t.Parallel()
	for code, want := range map[int]domain.TemplateStatus{
		132015: domain.TemplatePaused, 132016: domain.TemplateDisabled, 132001: {}, 131000: {}, 0: {},
	} {
		if got := whatsapp.TemplateStatusFor(code); got != want {
			t.Errorf("TemplateStatusFor(%d) = %q, want %q", code, got, want)
		}
	}
}
