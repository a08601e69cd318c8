package porttest

import (
	"testing"

	"github.com/heraldhq/herald/domain"
)

// A document header's file name is stored with its message and comes back
// with every read, a claim included: the dispatcher that sends the message,
// perhaps after a restart, sends the name the send was accepted with.
func testQueueDocumentNameSurvivesClaim(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	m := NewMessage(t, c, f.contact())
	m.HeaderFormat = domain.HeaderDocument
	m.MediaHeaderURL = "https://cdn.example.com/d/7f3a?sig=1"
	m.MediaFilename = "Contrato de serviço.pdf"
	if err := s.CreateMessages(f.ctx, m); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message with a document header", m, got)
	claimed := mustClaimOne(t, s, claim("dispatcher", Now()), m, 1)
	if claimed.Message.MediaFilename != m.MediaFilename || claimed.Message.MediaHeaderURL != m.MediaHeaderURL {
		t.Fatalf("claimed message carries %q at %q, want %q at %q", claimed.Message.MediaFilename,
			claimed.Message.MediaHeaderURL, m.MediaFilename, m.MediaHeaderURL)
	}
}
