package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListThreads reads one page of the workspace's inbox: its conversations,
// the most recently active first. Mode, when not zero, keeps one mode's
// contacts.
type ListThreads struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	Page      ports.Page
}

// ThreadsPage is one page of the inbox and the cursor of the next.
type ThreadsPage struct {
	Threads    []domain.Thread
	NextCursor string
}

// ListThreadsHandler answers ListThreads.
type ListThreadsHandler struct {
	inbox ports.InboxRepository
	obs   *usecase.Observer
}

// NewListThreadsHandler builds the handler.
func NewListThreadsHandler(inbox ports.InboxRepository, obs *usecase.Observer) *ListThreadsHandler {
	return &ListThreadsHandler{inbox: inbox, obs: obs}
}

// Handle returns the page.
func (h *ListThreadsHandler) Handle(ctx context.Context, q ListThreads) (ThreadsPage, error) {
	return usecase.Observe(ctx, h.obs, "list_threads", func(ctx context.Context) (ThreadsPage, error) {
		page, err := checkPage(q.Page)
		if err != nil {
			return ThreadsPage{}, err
		}
		ts, next, err := h.inbox.ListThreads(ctx, q.Workspace, q.Mode, page)
		if err != nil {
			return ThreadsPage{}, err
		}
		return ThreadsPage{Threads: ts, NextCursor: next}, nil
	})
}
