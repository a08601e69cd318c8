package memstore

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListThreads returns one page of the workspace's conversations of mode,
// the most recently active first, each with its newest entry and unread
// count.
func (r *repos) ListThreads(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, p ports.Page) ([]domain.Thread, string, error) {
	defer r.enter(ctx)()
	var after func(domain.Contact) bool
	if p.Cursor != "" {
		micros, id, ok := strings.Cut(p.Cursor, ".")
		n, err := strconv.ParseInt(micros, 10, 64)
		if !ok || err != nil || id == "" {
			return nil, "", domain.InvalidParameter("cursor", "the cursor is not one this list returned")
		}
		at := time.UnixMicro(n).UTC()
		after = func(c domain.Contact) bool {
			return c.LastMessageAt.Before(at) || (c.LastMessageAt.Equal(at) && string(c.ID) < id)
		}
	}
	var cs []domain.Contact
	for _, c := range r.st.contacts {
		if c.Workspace == ws && ofMode(c.Mode, mode) && c.LastMessageAt != nil && (after == nil || after(c)) {
			cs = append(cs, c)
		}
	}
	slices.SortFunc(cs, func(a, b domain.Contact) int {
		if c := b.LastMessageAt.Compare(*a.LastMessageAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	limit := p.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	next := ""
	if len(cs) > limit {
		cs = cs[:limit]
		last := cs[limit-1]
		next = strconv.FormatInt(last.LastMessageAt.UnixMicro(), 10) + "." + string(last.ID)
	}
	out := make([]domain.Thread, len(cs))
	for i, c := range cs {
		t := domain.Thread{Contact: copyContact(c)}
		read := r.st.readThrough[c.ID]
		for _, e := range r.st.entries {
			if e.Workspace != ws || e.ContactID != c.ID {
				continue
			}
			if domain.IsUnread(e, read) {
				t.Unread++
			}
			if e.ID > t.Last.ID {
				t.Last = e
			}
		}
		if t.Last.ID != "" {
			t.Last = copyEntry(t.Last)
			if m, ok := r.st.messages[t.Last.MessageID]; ok && t.Last.Direction == domain.Outbound && m.Workspace == ws {
				t.Last.Status = m.Status
			}
		}
		out[i] = t
	}
	return out, next, nil
}

// MarkThreadRead moves the contact's read mark forward to through and
// returns the mark it had.
func (r *repos) MarkThreadRead(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, through domain.EntryID) (domain.EntryID, error) {
	defer r.enter(ctx)()
	c, ok := r.st.contacts[contact]
	if !ok || c.Workspace != ws {
		return "", domain.NotFound(domain.ErrContactNotFound)
	}
	before := r.st.readThrough[contact]
	if through > before {
		put(r.st, r.st.readThrough, contact, through)
	}
	return before, nil
}
