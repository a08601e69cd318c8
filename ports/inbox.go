package ports

import (
	"context"

	"github.com/heraldhq/herald/domain"
)

// InboxRepository reads the dashboard's inbox: the workspace's
// conversations by last activity, with what nobody has read yet.
type InboxRepository interface {
	// ListThreads returns one page of the workspace's conversations of
	// mode (every mode when zero), in one query: contacts with a last
	// message time, the most recently active first (by last message time,
	// then id, both descending), each with its newest entry (an outbound
	// one carrying its message's current status) and its unread count
	// (inbound entries after the one its thread was read through). The
	// cursor of the next page is empty on the last.
	ListThreads(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, p Page) ([]domain.Thread, string, error)
	// MarkThreadRead records that the contact's thread was read through
	// the entry through: its inbound entries up to that one no longer
	// count as unread. It returns the mark before (empty: never read), so
	// the caller knows what was new. A mark never moves back: an older one
	// than the stored mark changes nothing. An unknown contact, or another
	// workspace's, is domain.ErrContactNotFound.
	MarkThreadRead(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, through domain.EntryID) (domain.EntryID, error)
}
