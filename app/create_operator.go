package app

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateOperator makes a dashboard login in a workspace (the default one
// when empty).
type CreateOperator struct {
	Workspace string
	Email     string
	Password  string
}

// CreateOperatorHandler answers CreateOperator.
type CreateOperatorHandler struct {
	workspaces ports.WorkspaceRepository
	operators  ports.OperatorRepository
	passwords  ports.PasswordHasher
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
	ids        ports.IDGenerator
}

// NewCreateOperatorHandler builds the handler.
func NewCreateOperatorHandler(workspaces ports.WorkspaceRepository, operators ports.OperatorRepository, passwords ports.PasswordHasher, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, ids ports.IDGenerator) *CreateOperatorHandler {
	return &CreateOperatorHandler{workspaces: workspaces, operators: operators, passwords: passwords, def: def, clock: clock, ids: ids}
}

// Handle checks the address and password, hashes the password and stores
// the operator. An address already taken is domain.ErrConflict.
func (h *CreateOperatorHandler) Handle(ctx context.Context, cmd CreateOperator) (domain.Operator, error) {
	email, err := domain.ParseEmail(cmd.Email)
	if err != nil {
		return domain.Operator{}, err
	}
	if err := domain.CheckPassword(cmd.Password); err != nil {
		return domain.Operator{}, err
	}
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return domain.Operator{}, err
	}
	hash, err := h.passwords.HashPassword(cmd.Password)
	if err != nil {
		return domain.Operator{}, err
	}
	o, err := domain.NewOperator(domain.OperatorID(h.ids.NewID(domain.PrefixOperator)), ws, email, hash, h.clock.Now())
	if err != nil {
		return domain.Operator{}, err
	}
	if err := h.operators.CreateOperator(ctx, o); err != nil {
		if errors.Is(err, domain.ErrConflict) {
			return domain.Operator{}, &domain.Error{Code: domain.CodeConflict, Param: "email",
				Detail: "an operator with this email address exists already"}
		}
		return domain.Operator{}, err
	}
	return o, nil
}
