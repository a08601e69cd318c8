package app_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// lockOrder is a Transactor that records, in order, the rows its
// transactions' live sends lock until they end: a workspace's contacts, its
// daily count and an account's messaging limit count.
type lockOrder struct {
	ports.Transactor
	mu    sync.Mutex
	taken []string
}

func (o *lockOrder) WithinTx(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
	return o.Transactor.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		r.Contacts = lockedContacts{r.Contacts, o}
		r.SendCounts = countedSends{r.SendCounts, o}
		r.Reach = countedReach{r.Reach, o}
		return fn(ctx, r)
	})
}

func (o *lockOrder) take(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.taken = append(o.taken, s)
}

type lockedContacts struct {
	ports.ContactRepository
	o *lockOrder
}

func (c lockedContacts) FindContactsByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phones []domain.PhoneNumber) ([]domain.Contact, error) {
	if mode == domain.ModeLive {
		c.o.take("contacts " + string(ws))
	}
	return c.ContactRepository.FindContactsByPhone(ctx, ws, mode, phones)
}

type countedSends struct {
	ports.SendCountRepository
	o *lockOrder
}

func (c countedSends) CountSend(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, day time.Time, limit int) (bool, error) {
	if mode == domain.ModeLive {
		c.o.take("day " + string(ws))
	}
	return c.SendCountRepository.CountSend(ctx, ws, mode, day, limit)
}

type countedReach struct {
	ports.MessagingReachRepository
	o *lockOrder
}

func (c countedReach) ReachRecipients(ctx context.Context, portfolio string, reaches []ports.Reach) ([]ports.Reached, error) {
	for _, r := range reaches {
		c.o.take("account " + portfolio + " " + r.Recipient)
	}
	return c.MessagingReachRepository.ReachRecipients(ctx, portfolio, reaches)
}

// TestBatchLocksInOneOrder: a batch of live sends from two workspaces
// through numbers of two business accounts locks the workspaces' contacts
// and then their daily counts in workspace order, then the accounts'
// messaging limit counts in account order, each in arrival order within.
// Taken in arrival order, two batches holding the same accounts in opposite
// orders deadlocked on PostgreSQL (768 of 15,000 sends answered 503 in the
// four-number pipeline benchmark).
func TestBatchLocksInOneOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	other := f.otherWorkspaceID(t)
	accounts := []string{"200000000000002", "100000000000001"} // arrival order is B before A
	campaigns := map[[2]string]string{}
	for _, acct := range accounts {
		n := porttest.NewNumber(t)
		n.WABAID = acct
		if err := f.st.CreateNumber(ctx, n); err != nil {
			t.Fatal(err)
		}
		for _, ws := range []domain.WorkspaceID{f.principal.Workspace, other} {
			c, err := app.NewCreateCampaignHandler(f.st, f.st, f.st, nil, f.def, f.clock, f.ids).WithNumbers(f.st).Handle(ctx,
				app.CreateCampaign{Workspace: string(ws), Name: "Offer", TemplateName: "offer", Language: "en_US",
					Body: "Hi {{1}}", Activate: true, PhoneNumberID: string(n.ID)})
			if err != nil {
				t.Fatal(err)
			}
			campaigns[[2]string{string(ws), acct}] = string(c.ID)
		}
	}
	order := &lockOrder{Transactor: f.st}
	g := newGate(order)
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: g, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: porttest.MediaByExtension(),
		Clock: f.clock, IDs: f.ids, Config: app.Config{DailySendCap: 100}, Obs: usecase.NewObserver(nil), LiveSending: true})

	// Arrival: workspace, account, recipient.
	sends := []struct {
		ws   domain.WorkspaceID
		acct string
	}{{other, accounts[0]}, {f.principal.Workspace, accounts[1]}, {other, accounts[1]}, {f.principal.Workspace, accounts[0]}}
	var cmds []app.SendCampaignMessage
	for i, s := range sends {
		cmds = append(cmds, app.SendCampaignMessage{Principal: domain.Principal{Workspace: s.ws, Key: f.principal.Key, Mode: domain.ModeLive},
			PhoneNumber: fmt.Sprintf("+1415555010%d", i), CampaignID: campaigns[[2]string{string(s.ws), s.acct}], Variables: []string{"Ana"}})
	}
	for i, r := range sendBatched(t, f, h, g, cmds...) {
		if r.err != nil {
			t.Fatalf("send %d: %v", i, r.err)
		}
	}

	first, second := slices.Min([]domain.WorkspaceID{f.principal.Workspace, other}), slices.Max([]domain.WorkspaceID{f.principal.Workspace, other})
	want := []string{"contacts " + string(first), "contacts " + string(second)}
	for _, ws := range []domain.WorkspaceID{first, first, second, second} {
		want = append(want, "day "+string(ws))
	}
	for _, i := range []int{1, 2, 0, 3} { // account A's, then B's
		want = append(want, fmt.Sprintf("account %s +1415555010%d", sends[i].acct, i))
	}
	order.mu.Lock()
	defer order.mu.Unlock()
	if !slices.Equal(order.taken, want) {
		t.Errorf("the batch took its counts in the order\n%s\nwant\n%s", strings.Join(order.taken, "\n"), strings.Join(want, "\n"))
	}
}
