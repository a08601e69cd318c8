package porttest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/heraldhq/herald/domain"
)

// NewID returns a fresh sortable identifier with the given prefix
// (domain.PrefixCampaign, …), made from the current time and crypto/rand.
func NewID(prefix string) string {
	var entropy [10]byte
	if _, err := rand.Read(entropy[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return domain.NewID(prefix, time.Now(), entropy)
}

// Now is the current time as every store keeps it: UTC, microseconds.
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

var phoneSeq atomic.Int64

func init() {
	n, err := rand.Int(rand.Reader, big.NewInt(1e8))
	if err != nil {
		panic(err)
	}
	phoneSeq.Store(n.Int64())
}

// RandomPhone returns a valid UK mobile number that no other call in this
// process returns. It never ends in 0001, 0002 or 0003, which the sandbox
// treats specially.
func RandomPhone() domain.PhoneNumber {
	for {
		n := phoneSeq.Add(1) % 1e9
		if last := n % 10000; last >= 1 && last <= 3 {
			continue
		}
		return domain.MustPhoneNumber(fmt.Sprintf("+447%09d", n))
	}
}

// NewWorkspace returns a valid workspace, not yet stored.
func NewWorkspace(t testing.TB) domain.Workspace {
	t.Helper()
	w, err := domain.NewWorkspace(domain.WorkspaceID(NewID(domain.PrefixWorkspace)), "Workspace "+t.Name(), Now())
	if err != nil {
		t.Fatalf("NewWorkspace: %v", err)
	}
	return w
}

// NewKey returns a valid API key of the given mode in ws, not yet stored.
func NewKey(t testing.TB, ws domain.WorkspaceID, mode domain.KeyMode) domain.APIKey {
	t.Helper()
	tok, err := domain.NewToken(mode, rand.Reader)
	if err != nil {
		t.Fatalf("NewToken: %v", err)
	}
	k, err := domain.NewAPIKey(domain.KeyID(NewID(domain.PrefixKey)), ws, "integration key", tok, Now())
	if err != nil {
		t.Fatalf("NewAPIKey: %v", err)
	}
	return k
}

// NewTemplate returns a template with a text header, a footer and two
// labelled placeholders.
func NewTemplate(t testing.TB) domain.Template {
	t.Helper()
	tmpl, err := domain.NewTemplate("order_update", "en_US", domain.HeaderText, "Your order",
		"Hi {{1}}, your order {{2}} ships today.", "Reply STOP to opt out",
		[]string{"first name", "order number"})
	if err != nil {
		t.Fatalf("NewTemplate: %v", err)
	}
	return tmpl
}

// NewCampaign returns an active campaign in ws using NewTemplate, not yet
// stored.
func NewCampaign(t testing.TB, ws domain.WorkspaceID) domain.Campaign {
	t.Helper()
	now := Now()
	c, err := domain.NewCampaign(domain.CampaignID(NewID(domain.PrefixCampaign)), ws, "Order updates", NewTemplate(t), now)
	if err != nil {
		t.Fatalf("NewCampaign: %v", err)
	}
	if err := c.Activate(now); err != nil {
		t.Fatalf("Activate: %v", err)
	}
	return c
}

// NewSyncedTemplate returns an approved marketing template of account, as
// template sync reads it: a text header, a footer and two labelled
// placeholders, under the given name and language.
func NewSyncedTemplate(t testing.TB, account, name, language string) domain.SyncedTemplate {
	t.Helper()
	def, err := domain.NewTemplate(name, language, domain.HeaderText, "Your order",
		"Hi {{1}}, your order {{2}} ships today.", "Reply STOP to opt out",
		[]string{"first name", "order number"})
	if err != nil {
		t.Fatalf("NewTemplate: %v", err)
	}
	return domain.SyncedTemplate{
		Account: account, ProviderID: NewProviderTemplateID(), Name: name, Language: language,
		Status: domain.TemplateApproved, Category: "MARKETING", Definition: def, SyncedAt: Now(),
	}
}

// NewUnsupportedTemplate returns a template of account that Herald cannot
// send: its definition is zero and Unsupported says why.
func NewUnsupportedTemplate(account, name, language string) domain.SyncedTemplate {
	return domain.SyncedTemplate{
		Account: account, ProviderID: NewProviderTemplateID(), Name: name, Language: language,
		Status: domain.TemplateApproved, Category: "UTILITY",
		Unsupported: "the template has a location header", SyncedAt: Now(),
	}
}

// NewProviderTemplateID returns a random numeric id like Meta's template
// ids.
func NewProviderTemplateID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1e15))
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("1%015d", n.Int64())
}

// NewAccount returns a fresh random WhatsApp Business Account id, so that
// cases isolate their templates.
func NewAccount() string { return NewID("waba") }

// NewTemplateName returns a fresh random template name, so that cases
// isolate the campaigns that use it.
func NewTemplateName() string { return NewID("tpl") }

// NewContact returns a test contact in ws with a random phone number, a
// name, an email address, attributes and tags, not yet stored.
func NewContact(t testing.TB, ws domain.WorkspaceID) domain.Contact {
	t.Helper()
	return newContactWithPhone(t, ws, RandomPhone())
}

func newContactWithPhone(t testing.TB, ws domain.WorkspaceID, phone domain.PhoneNumber) domain.Contact {
	t.Helper()
	now := Now()
	c := domain.NewContact(domain.ContactID(NewID(domain.PrefixContact)),
		domain.ConversationID(NewID(domain.PrefixConversation)), ws, domain.ModeTest, phone, now)
	name, email := "Asha Rao", "asha@example.com"
	err := c.ApplySync(domain.ContactSync{
		Name: &name, Email: &email,
		Attributes: map[string]string{"city": "Pune", "tier": "gold"},
		Tags:       []string{"vip", "beta"},
	}, now)
	if err != nil {
		t.Fatalf("ApplySync: %v", err)
	}
	return c
}

// NewMessage returns a queued message of campaign c to contact ct, sent with
// a key of the contact's mode, not yet stored. The campaign must use
// NewTemplate.
func NewMessage(t testing.TB, c domain.Campaign, ct domain.Contact) domain.Message {
	t.Helper()
	prep, err := c.Prepare([]string{"Asha", "A-1001"}, "", domain.MediaPolicy{})
	if err != nil {
		t.Fatalf("Prepare: %v", err)
	}
	p := domain.Principal{Workspace: c.Workspace, Key: domain.KeyID(NewID(domain.PrefixKey)), Mode: ct.Mode}
	return domain.NewMessage(domain.MessageID(NewID(domain.PrefixMessage)), c, ct, p, prep, Now())
}

// NewOutboundEntry returns the thread entry of message m to contact ct.
func NewOutboundEntry(m domain.Message, ct domain.Contact) domain.Entry {
	return domain.OutboundEntry(domain.EntryID(NewID(domain.PrefixEntry)), m, ct)
}

// NewInboundEntry returns the entry for a text message the contact wrote,
// with a fresh wamid.
func NewInboundEntry(ct domain.Contact, body string) domain.Entry {
	return domain.InboundEntry(domain.EntryID(NewID(domain.PrefixEntry)), ct,
		domain.InboundMessage{ProviderID: NewWamid(), Kind: domain.KindText, Text: body, At: Now()}, "")
}

// NewWamid returns a fresh random message id in the form of Meta's.
func NewWamid() string { return "wamid." + NewID("x") }

// NewWebhookEvent returns a webhook event with a fresh random body,
// received at the given time, not yet stored.
func NewWebhookEvent(receivedAt time.Time) domain.WebhookEvent {
	body := []byte(`{"object":"whatsapp_business_account","entry":[{"id":"` + NewID("waba") + `"}]}`)
	sum := sha256.Sum256(body)
	return domain.NewWebhookEvent(domain.WebhookEventID(NewID(domain.PrefixWebhookEvent)), body,
		hex.EncodeToString(sum[:]), receivedAt)
}

// NewEvent returns an event of type typ about subject (a message id for
// message events, "" or anything for others) in ws and mode, which
// occurred at at, with a small JSON object as its data, not yet stored.
func NewEvent(t testing.TB, ws domain.WorkspaceID, mode domain.KeyMode, typ domain.EventType, subject string, at time.Time) domain.Event {
	t.Helper()
	return newEventWithID(t, domain.EventID(NewID(domain.PrefixEvent)), ws, mode, typ, subject, at)
}

func newEventWithID(t testing.TB, id domain.EventID, ws domain.WorkspaceID, mode domain.KeyMode, typ domain.EventType, subject string, at time.Time) domain.Event {
	t.Helper()
	e, err := domain.NewEvent(id, ws, mode, typ, subject, []byte(`{"id":"`+NewID("x")+`","note":"<&>"}`), at)
	if err != nil {
		t.Fatalf("NewEvent: %v", err)
	}
	return e
}

// NewEndpoint returns an enabled endpoint of ws and mode subscribed to
// events, with a fresh secret, made at Now, not yet stored.
func NewEndpoint(t testing.TB, ws domain.WorkspaceID, mode domain.KeyMode, events domain.EventSubscription) domain.WebhookEndpoint {
	t.Helper()
	key, err := domain.NewWebhookSecretKey(rand.Reader)
	if err != nil {
		t.Fatalf("NewWebhookSecretKey: %v", err)
	}
	e, err := domain.NewWebhookEndpoint(domain.WebhookEndpointID(NewID(domain.PrefixWebhookEndpoint)), ws, mode,
		domain.EndpointSpec{URL: "https://hooks.example.com/herald/" + NewID("h"), Events: events, Description: "orders"},
		key, domain.WebhookPolicy{}, Now())
	if err != nil {
		t.Fatalf("NewWebhookEndpoint: %v", err)
	}
	return e
}

// Subscribe returns the subscription to the named types, or every type
// for "*".
func Subscribe(t testing.TB, names ...string) domain.EventSubscription {
	t.Helper()
	s, err := domain.ParseEventSubscription(names)
	if err != nil {
		t.Fatalf("ParseEventSubscription(%v): %v", names, err)
	}
	return s
}

// NewEmail returns a fresh random email address in normalised form, so that
// cases isolate their operators.
func NewEmail() string { return NewID("op") + "@example.com" }

// NewOperator returns an operator of ws with a fresh random email address,
// not yet stored. Its password hash is a placeholder: stores keep it as
// given.
func NewOperator(t testing.TB, ws domain.WorkspaceID) domain.Operator {
	t.Helper()
	o, err := domain.NewOperator(domain.OperatorID(NewID(domain.PrefixOperator)), ws, NewEmail(),
		"$argon2id$v=19$m=65536,t=3,p=4$"+NewID("salt")+"$"+NewID("hash"), Now())
	if err != nil {
		t.Fatalf("NewOperator: %v", err)
	}
	return o
}

// NewSession returns a sign-in of o at now with a fresh random token, not
// yet stored.
func NewSession(t testing.TB, o domain.Operator, now time.Time) domain.Session {
	t.Helper()
	tok, err := domain.NewSessionToken(rand.Reader)
	if err != nil {
		t.Fatalf("NewSessionToken: %v", err)
	}
	return domain.NewSession(tok, o, now)
}

// cmpOptions compare domain values: unexported enum fields are compared, nil
// and empty slices and maps are equal, and times must be the same instant and
// in UTC.
var cmpOptions = cmp.Options{
	cmp.AllowUnexported(domain.PhoneNumber{}, domain.KeyMode{}, domain.HeaderFormat{}, domain.SlotKind{}, domain.ButtonKind{},
		domain.CampaignStatus{}, domain.MessageStatus{}, domain.Direction{}, domain.TemplateStatus{},
		domain.TemplateCategory{}, domain.EventType{}, domain.DeliveryState{}, domain.EndpointStatus{},
		domain.DisabledReason{}, domain.NumberStatus{}),
	cmpopts.EquateEmpty(),
	cmp.Comparer(func(a, b time.Time) bool {
		return a.Equal(b) && a.Location().String() == b.Location().String()
	}),
}

// mustEqual fails the test when got differs from want.
func mustEqual[T any](t *testing.T, what string, want, got T) {
	t.Helper()
	if diff := cmp.Diff(want, got, cmpOptions); diff != "" {
		t.Fatalf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

// mustBe fails the test unless errors.Is(err, target).
func mustBe(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want %v", what, err, target)
	}
}

// fixture is one case's own workspace in the shared store.
type fixture struct {
	t   *testing.T
	ctx context.Context
	s   Store
	ws  domain.WorkspaceID
}

// newFixture stores a fresh workspace for the case.
func newFixture(t *testing.T, s Store) *fixture {
	t.Helper()
	w := NewWorkspace(t)
	if err := s.CreateWorkspace(t.Context(), w); err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	return &fixture{t: t, ctx: t.Context(), s: s, ws: w.ID}
}

func (f *fixture) key() domain.APIKey {
	f.t.Helper()
	k := NewKey(f.t, f.ws, domain.ModeLive)
	if err := f.s.CreateKey(f.ctx, k); err != nil {
		f.t.Fatalf("CreateKey: %v", err)
	}
	return cloneKey(k)
}

func (f *fixture) campaign() domain.Campaign {
	f.t.Helper()
	c := NewCampaign(f.t, f.ws)
	if err := f.s.CreateCampaign(f.ctx, c); err != nil {
		f.t.Fatalf("CreateCampaign: %v", err)
	}
	return cloneCampaign(c)
}

func (f *fixture) contact() domain.Contact {
	f.t.Helper()
	c := NewContact(f.t, f.ws)
	if err := f.s.CreateContact(f.ctx, c); err != nil {
		f.t.Fatalf("CreateContact: %v", err)
	}
	return cloneContact(c)
}

func (f *fixture) message(c domain.Campaign, ct domain.Contact) domain.Message {
	f.t.Helper()
	m := NewMessage(f.t, c, ct)
	if err := f.s.CreateMessages(f.ctx, m); err != nil {
		f.t.Fatalf("CreateMessages: %v", err)
	}
	return cloneMessage(m)
}

func (f *fixture) operator() domain.Operator {
	f.t.Helper()
	o := NewOperator(f.t, f.ws)
	if err := f.s.CreateOperator(f.ctx, o); err != nil {
		f.t.Fatalf("CreateOperator: %v", err)
	}
	return o
}

// session stores a sign-in of o at now.
func (f *fixture) session(o domain.Operator, now time.Time) domain.Session {
	f.t.Helper()
	sn := NewSession(f.t, o, now)
	if err := f.s.CreateSession(f.ctx, sn); err != nil {
		f.t.Fatalf("CreateSession: %v", err)
	}
	return sn
}

func (f *fixture) entry(e domain.Entry) domain.Entry {
	f.t.Helper()
	if err := f.s.AppendEntries(f.ctx, e); err != nil {
		f.t.Fatalf("AppendEntries: %v", err)
	}
	return e
}

// advance applies Advance to a stored message and returns the result.
func (f *fixture) advance(id domain.MessageID, status domain.MessageStatus, at time.Time, failure *domain.Failure) domain.Message {
	f.t.Helper()
	m, err := f.s.UpdateMessage(f.ctx, f.ws, id, func(m *domain.Message) error {
		m.Advance(status, at, failure)
		return nil
	})
	if err != nil {
		f.t.Fatalf("UpdateMessage: %v", err)
	}
	return m
}

// otherWorkspace stores another fresh workspace, for isolation checks.
func (f *fixture) otherWorkspace() domain.WorkspaceID {
	f.t.Helper()
	return newFixture(f.t, f.s).ws
}

// sortedDesc returns ids sorted newest first, which for sortable ids is
// descending order.
func sortedDesc[T ~string](ids []T) []T {
	out := append([]T(nil), ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out
}

// The fixture methods hand the test a deep copy of what they stored, so a
// store that kept a reference to the written value and mutated it later
// cannot make a comparison pass by changing both sides.

func cloneKey(k domain.APIKey) domain.APIKey {
	k.LastUsedAt = clonePtr(k.LastUsedAt)
	k.RevokedAt = clonePtr(k.RevokedAt)
	k.ExpiresAt = clonePtr(k.ExpiresAt)
	return k
}

func cloneCampaign(c domain.Campaign) domain.Campaign {
	c.Template.Placeholders = slices.Clone(c.Template.Placeholders)
	c.Template.Slots = slices.Clone(c.Template.Slots)
	return c
}

func cloneSyncedTemplates(ts []domain.SyncedTemplate) []domain.SyncedTemplate {
	if ts == nil {
		return nil
	}
	out := make([]domain.SyncedTemplate, len(ts))
	for i, t := range ts {
		t.Definition.Placeholders = slices.Clone(t.Definition.Placeholders)
		t.Definition.Slots = slices.Clone(t.Definition.Slots)
		out[i] = t
	}
	return out
}

func cloneContact(c domain.Contact) domain.Contact {
	c.Attributes = maps.Clone(c.Attributes)
	c.Tags = slices.Clone(c.Tags)
	c.LastMessageAt = clonePtr(c.LastMessageAt)
	c.LastInboundAt = clonePtr(c.LastInboundAt)
	c.OptOutChangedAt = clonePtr(c.OptOutChangedAt)
	c.Marketing.ChangedAt = clonePtr(c.Marketing.ChangedAt)
	return c
}

func cloneMessage(m domain.Message) domain.Message {
	m.Variables = slices.Clone(m.Variables)
	m.History = slices.Clone(m.History)
	m.Values = slices.Clone(m.Values)
	m.Failure = clonePtr(m.Failure)
	m.Pricing = clonePtr(m.Pricing)
	m.Session = clonePtr(m.Session)
	return m
}

func cloneEntry(e domain.Entry) domain.Entry {
	e.Media = clonePtr(e.Media)
	return e
}

func cloneOutboxEvent(e domain.Event) domain.Event {
	e.Body = slices.Clone(e.Body)
	return e
}

func cloneEndpoint(e domain.WebhookEndpoint) domain.WebhookEndpoint {
	e.DisabledAt = clonePtr(e.DisabledAt)
	e.FailingSince = clonePtr(e.FailingSince)
	secrets := make([]domain.EndpointSecret, len(e.Secrets))
	for i, s := range e.Secrets {
		secrets[i] = domain.EndpointSecret{Key: slices.Clone(s.Key), CreatedAt: s.CreatedAt, ExpiresAt: clonePtr(s.ExpiresAt)}
	}
	e.Secrets = secrets
	return e
}

func cloneEvent(e domain.WebhookEvent) domain.WebhookEvent {
	e.Body = slices.Clone(e.Body)
	e.AppliedAt = clonePtr(e.AppliedAt)
	return e
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// NewSlotsTemplate returns a template with a slot of every kind a
// carousel-free template has: a named body, a text header's parameter,
// quick-reply, URL and copy-code buttons and an offer's expiry, some slots
// remapped (a fixed payload, a shared position, labels). A send gives
// five variables: name, code (also the coupon), the header's name, the
// URL suffix and the expiry.
func NewSlotsTemplate(t testing.TB) domain.Template {
	t.Helper()
	tmpl, err := domain.DefineTemplate(domain.TemplateDefinition{Name: "flash_sale", Language: "en_US", Named: true,
		HeaderFormat: domain.HeaderText, HeaderText: "Sale for {{first_name}}", Body: "Hi {{first_name}}, use {{code}}.",
		Offer: &domain.OfferDef{Text: "Ends soon", HasExpiration: true},
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonCopyCode},
			{Kind: domain.ButtonURL, Text: "Shop", URL: "https://shop.example/s/{{1}}"}}})
	if err != nil {
		t.Fatalf("DefineTemplate: %v", err)
	}
	label, payload := "coupon", "STOP_PROMOS"
	if err := tmpl.Remap("mapping", []domain.MappingEntry{
		{Slot: "buttons.1", Position: 2, Label: &label}, {Slot: "buttons.0", Value: &payload},
		{Slot: "buttons.2", Position: 4}, {Slot: "offer", Position: 5},
	}); err != nil {
		t.Fatalf("Remap: %v", err)
	}
	return tmpl
}
