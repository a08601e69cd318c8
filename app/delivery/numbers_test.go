package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// cloudCall is one send a number's client made.
type cloudCall struct {
	from, token string
	message     domain.MessageID
}

// fakeCloud makes a client per number that records its sends and answers
// with the failure a test set for the token.
type fakeCloud struct {
	mu    sync.Mutex
	calls []cloudCall
	fail  map[string]error // by token
}

func (c *fakeCloud) ForNumber(n ports.NumberCredentials) ports.NumberClient {
	return numberClient{c: c, n: n}
}

func (c *fakeCloud) sent() []cloudCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]cloudCall(nil), c.calls...)
}

type numberClient struct {
	c *fakeCloud
	n ports.NumberCredentials
}

func (n numberClient) Send(_ context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	n.c.calls = append(n.c.calls, cloudCall{from: n.n.PhoneNumberID, token: n.n.AccessToken, message: m.ID})
	if err := n.c.fail[n.n.AccessToken]; err != nil {
		return ports.SendResult{}, err
	}
	return ports.SendResult{ProviderID: "wamid." + string(m.ID)}, nil
}

func (numberClient) MarkRead(context.Context, string, bool) error { return nil }
func (n numberClient) Account() string                            { return n.n.WABAID }
func (numberClient) ListTemplates(context.Context) ([]domain.SyncedTemplate, error) {
	return nil, nil
}
func (numberClient) SubmitTemplate(context.Context, domain.TemplateDraft) (ports.SubmittedTemplate, error) {
	return ports.SubmittedTemplate{}, errors.New("not submitting")
}
func (numberClient) DeleteTemplate(context.Context, string) error { return errors.New("not deleting") }

// numbersWorld is a store with two numbers (their own tokens) and the
// registry over them, with the HERALD_WHATSAPP_* number's sender beside.
type numbersWorld struct {
	st            *memstore.Store
	cloud         *fakeCloud
	env           *portsmock.WhatsAppSenderMock
	reg           *delivery.Numbers
	sealer        *system.Secrets
	one, two      domain.BusinessNumber
	ws            domain.WorkspaceID
	campaignOne   domain.Campaign
	campaignTwo   domain.Campaign
	campaignNoNum domain.Campaign
}

func newNumbersWorld(t *testing.T) *numbersWorld {
	t.Helper()
	ctx := context.Background()
	key, err := system.NewSecretKey()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := system.NewSecrets(system.SecretKeyConfig{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	w := &numbersWorld{st: memstore.New(), cloud: &fakeCloud{fail: map[string]error{}}, sealer: sealer}
	w.env = &portsmock.WhatsAppSenderMock{SendFunc: func(context.Context, ports.OutboundMessage) (ports.SendResult, error) {
		return ports.SendResult{}, errors.New("the environment's number sent")
	}}
	w.reg = delivery.NewNumbers(w.st, sealer, w.cloud, w.env, delivery.NumbersConfig{EnvPhoneNumberID: "999"}, delivery.Config{}, system.Clock{})
	h := app.NewNumbersHandler(w.st, w.st, sealer, w.reg, system.Clock{}, system.NewIDs())
	wsp := porttest.NewWorkspace(t)
	if err := w.st.CreateWorkspace(ctx, wsp); err != nil {
		t.Fatal(err)
	}
	w.ws = wsp.ID
	add := func(metaID, waba, token string) domain.BusinessNumber {
		n, err := h.Add(ctx, app.AddNumber{Spec: domain.NumberSpec{MetaID: metaID, WABAID: waba, AppID: "77" + metaID,
			AllWorkspaces: true}, AccessToken: token, AppSecret: "secret-of-" + metaID})
		if err != nil {
			t.Fatalf("Add: %v", err)
		}
		return n
	}
	w.one = add("1001", "501", "token-one-aaaaaaaa")
	w.two = add("1002", "502", "token-two-bbbbbbbb")
	camp := func(n domain.BusinessNumberID) domain.Campaign {
		c := porttest.NewCampaign(t, w.ws)
		c.Number = n
		if err := w.st.CreateCampaign(ctx, c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	w.campaignOne, w.campaignTwo, w.campaignNoNum = camp(w.one.ID), camp(w.two.ID), camp("")
	return w
}

// send queues a live message of c.
func (w *numbersWorld) send(t *testing.T, c domain.Campaign) domain.Message {
	t.Helper()
	ct := porttest.NewContact(t, w.ws)
	ct.Mode = domain.ModeLive
	if err := w.st.CreateContact(context.Background(), ct); err != nil {
		t.Fatal(err)
	}
	m := porttest.NewMessage(t, c, ct)
	if err := w.st.CreateMessages(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

func (w *numbersWorld) dispatch(t *testing.T) {
	t.Helper()
	d := delivery.NewDispatcher(w.st, w.st, w.st, w.st, delivery.Senders{Live: w.env, Sandbox: w.env, Numbers: w.reg},
		system.Clock{}, system.NewIDs(), nil, nil, delivery.Config{}, usecase.NewObserver(nil))
	if _, err := d.DispatchOnce(context.Background(), make(chan struct{}, 16)); err != nil {
		t.Fatal(err)
	}
	d.Wait()
}

// Each message leaves from its campaign's number with that number's
// token; the tokens were stored sealed and are opened only to send.
func TestSendsLeaveFromTheirNumber(t *testing.T) {
	t.Parallel()
	w := newNumbersWorld(t)
	m1, m2 := w.send(t, w.campaignOne), w.send(t, w.campaignTwo)
	if m1.Number != w.one.ID || m2.Number != w.two.ID {
		t.Fatalf("messages name %q and %q", m1.Number, m2.Number)
	}
	w.dispatch(t)
	got := map[domain.MessageID]cloudCall{}
	for _, c := range w.cloud.sent() {
		got[c.message] = c
	}
	if c := got[m1.ID]; c.from != "1001" || c.token != "token-one-aaaaaaaa" {
		t.Errorf("message of number one sent as %+v", c)
	}
	if c := got[m2.ID]; c.from != "1002" || c.token != "token-two-bbbbbbbb" {
		t.Errorf("message of number two sent as %+v", c)
	}
	if len(w.env.SendCalls()) != 0 {
		t.Errorf("the environment's sender was used %d times", len(w.env.SendCalls()))
	}
	stored, err := w.st.GetNumber(context.Background(), w.one.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored.AccessToken.Data), "token-one") || stored.TokenHint != "aaaa" {
		t.Errorf("stored token %v, hint %q", stored.AccessToken, stored.TokenHint)
	}
}

// Meta refusing one number's token pauses the sends with that token, not
// the other number's.
func TestAuthPausePerToken(t *testing.T) {
	t.Parallel()
	w := newNumbersWorld(t)
	w.cloud.fail["token-one-aaaaaaaa"] = &ports.SendError{Class: ports.ClassAuth, Code: 190, Title: "Invalid OAuth access token"}
	w.send(t, w.campaignOne)
	w.dispatch(t)
	if n := len(w.cloud.sent()); n != 1 {
		t.Fatalf("%d calls, want the one refused", n)
	}
	// Next: one more on each number. Number one's waits without calling
	// Meta; number two's goes.
	held, sent := w.send(t, w.campaignOne), w.send(t, w.campaignTwo)
	w.dispatch(t)
	for _, c := range w.cloud.sent()[1:] {
		if c.message == held.ID {
			t.Errorf("a message with the refused token was sent during the pause")
		}
	}
	found := false
	for _, c := range w.cloud.sent() {
		found = found || c.message == sent.ID
	}
	if !found {
		t.Error("the other number's message was held too")
	}
}

// A message without a number leaves from the default: the only stored
// number with HERALD_WHATSAPP_* unset, else the environment's.
func TestMessageWithoutNumberTakesTheDefault(t *testing.T) {
	t.Parallel()
	w := newNumbersWorld(t)
	// Two active numbers and no environment number stored: no default,
	// and the environment's sender takes it.
	m := w.send(t, w.campaignNoNum)
	w.dispatch(t)
	if len(w.env.SendCalls()) != 1 || w.env.SendCalls()[0].M.ID != m.ID {
		t.Fatalf("environment sender calls: %d", len(w.env.SendCalls()))
	}
	// With number two disabled, number one is the only one.
	if _, err := w.st.UpdateNumber(context.Background(), w.two.ID, func(n *domain.BusinessNumber) error {
		n.Status = domain.NumberDisabled
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w.reg.Invalidate()
	m = w.send(t, w.campaignNoNum)
	w.dispatch(t)
	last := w.cloud.sent()
	if len(last) == 0 || last[len(last)-1].message != m.ID || last[len(last)-1].from != "1001" {
		t.Errorf("calls %+v, want the message from 1001", last)
	}
}

// A server without the key that sealed the stored secrets does not start:
// the error names the setting.
func TestNumbersNeedTheirKey(t *testing.T) {
	t.Parallel()
	w := newNumbersWorld(t)
	if err := w.reg.Load(context.Background()); err != nil {
		t.Fatalf("Load with the key: %v", err)
	}
	if got := len(w.reg.AppSecrets()); got != 2 {
		t.Fatalf("%d app secrets, want 2", got)
	}
	other, err := system.NewSecrets(system.SecretKeyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	reg := delivery.NewNumbers(w.st, other, w.cloud, nil, delivery.NumbersConfig{}, delivery.Config{}, system.Clock{})
	err = reg.Load(context.Background())
	if !errors.Is(err, ports.ErrSecretKeyUnknown) || !strings.Contains(err.Error(), "HERALD_SECRET_KEY") {
		t.Fatalf("Load without the key: %v, want ErrSecretKeyUnknown naming HERALD_SECRET_KEY", err)
	}
}

// A webhook's number is Herald's when it is stored (disabled too: its
// inbound traffic is still the business's) or is HERALD_WHATSAPP_*'s.
func TestNumbersAreOurs(t *testing.T) {
	t.Parallel()
	w := newNumbersWorld(t)
	if _, err := w.st.UpdateNumber(context.Background(), w.two.ID, func(n *domain.BusinessNumber) error {
		n.Status = domain.NumberDisabled
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	w.reg.Invalidate()
	for id, want := range map[string]bool{"1001": true, "1002": true, "999": true, "555": false, "": false} {
		if got := w.reg.IsOurs(id); got != want {
			t.Errorf("IsOurs(%q) = %v, want %v", id, got, want)
		}
	}
	if n, ok := w.reg.ByMetaID(context.Background(), "1002"); !ok || n.ID != w.two.ID {
		t.Errorf("ByMetaID(1002) = %s, %v", n.ID, ok)
	}
}

// The dispatcher keeps in flight enough sends for every number's pace
// together, not one number's: four numbers at 1,000 messages a second
// need four times the slots of one.
func TestSlotsFollowTheNumbersPaces(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newNumbersWorld(t)
	d := delivery.NewDispatcher(w.st, w.st, w.st, w.st, delivery.Senders{Live: w.env, Sandbox: w.env, Numbers: w.reg},
		system.Clock{}, system.NewIDs(), nil, nil, delivery.Config{}, usecase.NewObserver(nil))
	if err := w.reg.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := d.Slots(); got != 40 {
		t.Errorf("two numbers at the default 80/s: %d slots, want 40 (160/s for a quarter of a second)", got)
	}
	h := app.NewNumbersHandler(w.st, w.st, w.sealer, w.reg, system.Clock{}, system.NewIDs())
	var fast []domain.BusinessNumber
	for i, id := range []string{"2001", "2002", "2003", "2004"} {
		n, err := h.Add(ctx, app.AddNumber{Spec: domain.NumberSpec{MetaID: id, WABAID: "601", AppID: "88" + id, MPS: domain.MaxNumberMPS,
			AllWorkspaces: true}, AccessToken: fmt.Sprintf("token-fast-%d-cccccccc", i), AppSecret: "secret-of-" + id})
		if err != nil {
			t.Fatal(err)
		}
		fast = append(fast, n)
	}
	if err := w.reg.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := d.Slots(), (2*80+4*domain.MaxNumberMPS)/4; got != want {
		t.Errorf("two numbers at 80/s and four at 1,000/s: %d slots, want %d", got, want)
	}
	for _, n := range append(fast, w.one, w.two) {
		if _, err := w.st.UpdateNumber(ctx, n.ID, func(n *domain.BusinessNumber) error {
			n.Status = domain.NumberDisabled
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.reg.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := d.Slots(); got != 32 {
		t.Errorf("every number disabled: %d slots, want the floor of 32", got)
	}
}
