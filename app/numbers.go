package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The operators' management of business numbers (the CLI and the
// dashboard): add, change, remove and list them. Access tokens and app
// secrets arrive in clear and are stored sealed; nothing here returns them.

// AddNumber stores a new business number. AccessToken is required;
// AppSecret, when given, is stored with the number's Meta app (AppID).
type AddNumber struct {
	Spec        domain.NumberSpec
	AccessToken string
	AppSecret   string
}

// UpdateNumber changes a number: Spec replaces its operator's fields; an
// empty AccessToken or AppSecret keeps the stored one; a zero Status keeps
// its status.
type UpdateNumber struct {
	ID          domain.BusinessNumberID
	Spec        domain.NumberSpec
	AccessToken string
	AppSecret   string
	Status      domain.NumberStatus
}

// NumbersHandler answers AddNumber, UpdateNumber, RemoveNumber and the
// operators' list.
type NumbersHandler struct {
	repo       ports.NumberRepository
	workspaces ports.WorkspaceRepository
	sealer     ports.SecretSealer
	live       *delivery.Numbers
	clock      ports.Clock
	ids        ports.IDGenerator
}

// NewNumbersHandler builds the handler; sealer may be nil (then numbers
// with secrets cannot be stored) and so may live (nothing to tell of a
// change).
func NewNumbersHandler(repo ports.NumberRepository, workspaces ports.WorkspaceRepository, sealer ports.SecretSealer,
	live *delivery.Numbers, clock ports.Clock, ids ports.IDGenerator) *NumbersHandler {
	return &NumbersHandler{repo: repo, workspaces: workspaces, sealer: sealer, live: live, clock: clock, ids: ids}
}

// Add checks, seals and stores a new number (and its app's secret).
func (h *NumbersHandler) Add(ctx context.Context, cmd AddNumber) (domain.BusinessNumber, error) {
	if cmd.AccessToken == "" {
		return domain.BusinessNumber{}, domain.InvalidParameter("accessToken", "a number needs its access token")
	}
	if err := h.check(ctx, cmd.Spec, cmd.AppSecret); err != nil {
		return domain.BusinessNumber{}, err
	}
	id := domain.BusinessNumberID(h.ids.NewID(domain.PrefixBusinessNumber))
	token, err := h.seal(cmd.AccessToken, delivery.NumberTokenAAD(id))
	if err != nil {
		return domain.BusinessNumber{}, err
	}
	n, err := domain.NewBusinessNumber(id, cmd.Spec, token, domain.TokenHint(cmd.AccessToken), h.clock.Now())
	if err != nil {
		return domain.BusinessNumber{}, err
	}
	if err := h.putApp(ctx, cmd.Spec.AppID, cmd.AppSecret); err != nil {
		return domain.BusinessNumber{}, err
	}
	if err := h.repo.CreateNumber(ctx, n); err != nil {
		if errors.Is(err, domain.ErrConflict) {
			return domain.BusinessNumber{}, &domain.Error{Code: domain.CodeConflict, Param: "metaPhoneNumberId",
				Detail: "a number with this Meta phone number id is stored already"}
		}
		return domain.BusinessNumber{}, err
	}
	h.changed()
	return n, nil
}

// Update changes a stored number.
func (h *NumbersHandler) Update(ctx context.Context, cmd UpdateNumber) (domain.BusinessNumber, error) {
	if err := h.check(ctx, cmd.Spec, cmd.AppSecret); err != nil {
		return domain.BusinessNumber{}, err
	}
	var token domain.SealedSecret
	if cmd.AccessToken != "" {
		var err error
		if token, err = h.seal(cmd.AccessToken, delivery.NumberTokenAAD(cmd.ID)); err != nil {
			return domain.BusinessNumber{}, err
		}
	}
	if err := h.putApp(ctx, cmd.Spec.AppID, cmd.AppSecret); err != nil {
		return domain.BusinessNumber{}, err
	}
	now := h.clock.Now()
	n, err := h.repo.UpdateNumber(ctx, cmd.ID, func(n *domain.BusinessNumber) error {
		n.Apply(cmd.Spec)
		if !token.IsZero() {
			n.AccessToken, n.TokenHint = token, domain.TokenHint(cmd.AccessToken)
		}
		if !cmd.Status.IsZero() {
			n.Status = cmd.Status
		}
		n.UpdatedAt = now
		return nil
	})
	if errors.Is(err, domain.ErrConflict) {
		return domain.BusinessNumber{}, &domain.Error{Code: domain.CodeConflict, Param: "metaPhoneNumberId",
			Detail: "another number has this Meta phone number id"}
	}
	if err != nil {
		return domain.BusinessNumber{}, err
	}
	h.changed()
	return n, nil
}

// Remove deletes a stored number. Its campaigns keep its id, and their
// live messages wait (and fail when their attempts run out) until they are
// moved to another number: disabling a number is the gentler way.
func (h *NumbersHandler) Remove(ctx context.Context, id domain.BusinessNumberID) error {
	if err := h.repo.DeleteNumber(ctx, id); err != nil {
		return err
	}
	h.changed()
	return nil
}

// Get returns one stored number.
func (h *NumbersHandler) Get(ctx context.Context, id domain.BusinessNumberID) (domain.BusinessNumber, error) {
	return h.repo.GetNumber(ctx, id)
}

// List returns every stored number, oldest first.
func (h *NumbersHandler) List(ctx context.Context) ([]domain.BusinessNumber, error) {
	return h.repo.ListNumbers(ctx)
}

// check validates a spec, its workspaces (they must exist) and its app
// (a secret needs an app id).
func (h *NumbersHandler) check(ctx context.Context, s domain.NumberSpec, appSecret string) error {
	if err := s.Check(); err != nil {
		return err
	}
	if appSecret != "" && s.AppID == "" {
		return domain.InvalidParameter("appId", "an app secret belongs to a Meta app: give its id")
	}
	for _, ws := range s.Workspaces {
		if _, err := h.workspaces.GetWorkspace(ctx, ws); err != nil {
			if domain.IsNotFound(err) {
				return domain.InvalidParameter("workspaces", fmt.Sprintf("no workspace %s", ws))
			}
			return err
		}
	}
	return nil
}

// seal seals a secret; without a key it says which setting is missing.
func (h *NumbersHandler) seal(secret string, aad []byte) (domain.SealedSecret, error) {
	if h.sealer == nil {
		return domain.SealedSecret{}, ports.ErrNoSecretKey
	}
	return h.sealer.Seal([]byte(secret), aad)
}

// putApp stores the app's secret, sealed, when one is given.
func (h *NumbersHandler) putApp(ctx context.Context, appID, secret string) error {
	if secret == "" {
		return nil
	}
	sealed, err := h.seal(secret, delivery.AppSecretAAD(appID))
	if err != nil {
		return err
	}
	now := h.clock.Now()
	return h.repo.PutApp(ctx, domain.MetaApp{ID: appID, Secret: sealed, SecretHint: domain.TokenHint(secret),
		CreatedAt: now, UpdatedAt: now})
}

func (h *NumbersHandler) changed() {
	if h.live != nil {
		h.live.Invalidate()
	}
}

// EnsureEnvNumber makes the number the HERALD_WHATSAPP_* settings define a
// stored number, offered to every workspace: created at start when absent,
// its business account brought up to date when present. Its token and app
// secret stay in the environment and are not stored.
type EnsureEnvNumber struct {
	PhoneNumberID string
	WABAID        string
}

// EnsureEnvNumber stores or updates the environment's number; with no
// phone number id set it does nothing.
func (h *NumbersHandler) EnsureEnvNumber(ctx context.Context, cmd EnsureEnvNumber) (domain.BusinessNumber, error) {
	if cmd.PhoneNumberID == "" {
		return domain.BusinessNumber{}, nil
	}
	spec := domain.NumberSpec{MetaID: cmd.PhoneNumberID, WABAID: cmd.WABAID, AllWorkspaces: true}
	if err := spec.Check(); err != nil {
		return domain.BusinessNumber{}, fmt.Errorf("HERALD_WHATSAPP_PHONE_NUMBER_ID or HERALD_WHATSAPP_WABA_ID: %w", err)
	}
	n, err := h.repo.GetNumberByMetaID(ctx, cmd.PhoneNumberID)
	switch {
	case errors.Is(err, domain.ErrPhoneNumberNotFound):
		n, err = domain.NewBusinessNumber(domain.BusinessNumberID(h.ids.NewID(domain.PrefixBusinessNumber)), spec,
			domain.SealedSecret{}, "", h.clock.Now())
		if err != nil {
			return domain.BusinessNumber{}, err
		}
		if err := h.repo.CreateNumber(ctx, n); err != nil {
			if errors.Is(err, domain.ErrConflict) { // another instance made it meanwhile
				return h.repo.GetNumberByMetaID(ctx, cmd.PhoneNumberID)
			}
			return domain.BusinessNumber{}, err
		}
		h.changed()
		return n, nil
	case err != nil:
		return domain.BusinessNumber{}, err
	case cmd.WABAID == "" || n.WABAID == cmd.WABAID:
		return n, nil
	}
	n, err = h.repo.UpdateNumber(ctx, n.ID, func(n *domain.BusinessNumber) error {
		n.WABAID, n.UpdatedAt = cmd.WABAID, h.clock.Now()
		return nil
	})
	h.changed()
	return n, err
}

// RotateSecrets seals every stored secret that is not under the current
// key again under it, and says how many it sealed again. The old key must
// be held (HERALD_SECRET_KEY_PREVIOUS).
func (h *NumbersHandler) RotateSecrets(ctx context.Context) (int, error) {
	if h.sealer == nil || h.sealer.KeyID() == "" {
		return 0, ports.ErrNoSecretKey
	}
	current := h.sealer.KeyID()
	numbers, err := h.repo.ListNumbers(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, num := range numbers {
		if num.AccessToken.IsZero() || num.AccessToken.KeyID == current {
			continue
		}
		resealed, err := h.reseal(num.AccessToken, delivery.NumberTokenAAD(num.ID))
		if err != nil {
			return n, fmt.Errorf("phone number %s: %w", num.ID, err)
		}
		if _, err := h.repo.UpdateNumber(ctx, num.ID, func(u *domain.BusinessNumber) error {
			u.AccessToken = resealed
			return nil
		}); err != nil {
			return n, err
		}
		n++
	}
	apps, err := h.repo.ListApps(ctx)
	if err != nil {
		return n, err
	}
	for _, a := range apps {
		if a.Secret.IsZero() || a.Secret.KeyID == current {
			continue
		}
		resealed, err := h.reseal(a.Secret, delivery.AppSecretAAD(a.ID))
		if err != nil {
			return n, fmt.Errorf("the Meta app %s: %w", a.ID, err)
		}
		a.Secret, a.UpdatedAt = resealed, h.clock.Now()
		if err := h.repo.PutApp(ctx, a); err != nil {
			return n, err
		}
		n++
	}
	h.changed()
	return n, nil
}

func (h *NumbersHandler) reseal(s domain.SealedSecret, aad []byte) (domain.SealedSecret, error) {
	plain, err := h.sealer.Open(s, aad)
	if err != nil {
		if errors.Is(err, ports.ErrSecretKeyUnknown) {
			return domain.SealedSecret{}, fmt.Errorf("sealed under key %s: give the old key as HERALD_SECRET_KEY_PREVIOUS: %w", s.KeyID, err)
		}
		return domain.SealedSecret{}, err
	}
	return h.sealer.Seal(plain, aad)
}

// ListPhoneNumbers is what a key sees at GET /v1/phone-numbers: the
// numbers its workspace may use (live keys), or test mode's simulated
// number (test keys).
type ListPhoneNumbersHandler struct {
	repo ports.NumberRepository
}

// NewListPhoneNumbersHandler builds the handler.
func NewListPhoneNumbersHandler(repo ports.NumberRepository) *ListPhoneNumbersHandler {
	return &ListPhoneNumbersHandler{repo: repo}
}

// Handle lists the numbers p's workspace may send from in p's mode.
func (h *ListPhoneNumbersHandler) Handle(ctx context.Context, p domain.Principal) ([]domain.BusinessNumber, error) {
	if p.Mode != domain.ModeLive {
		return []domain.BusinessNumber{domain.SandboxNumber()}, nil
	}
	all, err := h.repo.ListNumbers(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(n domain.BusinessNumber) bool { return !n.UsableBy(p.Workspace) }), nil
}

// NumberFor picks the number a workspace's campaign sends from: the one
// named (it must be one the workspace may use), else the only one it may
// use. With several and none named, the caller must choose
// (phone_number_required); with none at all, "" (the server then sends
// from HERALD_WHATSAPP_*'s number, or refuses live sends).
func NumberFor(ctx context.Context, repo ports.NumberRepository, ws domain.WorkspaceID, named string) (domain.BusinessNumberID, error) {
	if named != "" {
		id, err := domain.ParseBusinessNumberID(named)
		if err != nil {
			return "", &domain.Error{Code: domain.CodePhoneNumberNotFound, Param: "phoneNumberId", Detail: domain.ErrPhoneNumberNotFound.Detail}
		}
		n, err := repo.GetNumber(ctx, id)
		if errors.Is(err, domain.ErrPhoneNumberNotFound) || (err == nil && !n.UsableBy(ws)) {
			return "", &domain.Error{Code: domain.CodePhoneNumberNotFound, Param: "phoneNumberId", Detail: domain.ErrPhoneNumberNotFound.Detail}
		}
		return id, err
	}
	all, err := repo.ListNumbers(ctx)
	if err != nil {
		return "", err
	}
	usable := slices.DeleteFunc(all, func(n domain.BusinessNumber) bool { return !n.UsableBy(ws) })
	switch len(usable) {
	case 0:
		return "", nil
	case 1:
		return usable[0].ID, nil
	}
	return "", &domain.Error{Code: domain.CodePhoneNumberRequired, Param: "phoneNumberId",
		Detail: fmt.Sprintf("this workspace may send from %d phone numbers: name one (GET /v1/phone-numbers lists them)", len(usable))}
}

// numberToMoveTo is the number an edit of a campaign moves it to: none
// when the edit names none, phone_number_not_found when it names one on a
// server that stores no numbers (repo nil), else NumberFor's answer.
func numberToMoveTo(ctx context.Context, repo ports.NumberRepository, ws domain.WorkspaceID, named string) (domain.BusinessNumberID, error) {
	if named == "" {
		return "", nil
	}
	if repo == nil {
		return "", &domain.Error{Code: domain.CodePhoneNumberNotFound, Param: "phoneNumberId", Detail: domain.ErrPhoneNumberNotFound.Detail}
	}
	return NumberFor(ctx, repo, ws, named)
}
