package events

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The pull API's page sizes.
const (
	DefaultEventPage = ports.DefaultEventLimit
	MaxEventPage     = 1000
)

// ListEvents pulls a workspace's events of Mode, oldest first, after the
// cursor of a previous page (empty: from the oldest kept).
type ListEvents struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	After     string
	Types     []string
	Limit     int // zero: DefaultEventPage
}

// EventPage is one page of events and the cursor to pull the next from:
// always given, so that a reader that got everything asks again later
// from where it stopped. More says the page was full: more events may be
// waiting now.
type EventPage struct {
	Events     []domain.Event
	NextCursor string
	More       bool
}

// ListEventsHandler answers ListEvents.
type ListEventsHandler struct {
	events ports.EventRepository
	obs    *usecase.Observer
}

// NewListEventsHandler builds the handler.
func NewListEventsHandler(events ports.EventRepository, obs *usecase.Observer) *ListEventsHandler {
	return &ListEventsHandler{events: events, obs: obs}
}

// Handle returns one page. A cursor this API did not make, or a limit out
// of range, is invalid_parameter (after, limit); an unknown type is
// invalid_event_type (types).
func (h *ListEventsHandler) Handle(ctx context.Context, q ListEvents) (EventPage, error) {
	return usecase.Observe(ctx, h.obs, "list_events", func(ctx context.Context) (EventPage, error) {
		after, err := ParseEventCursor(q.After)
		if err != nil {
			return EventPage{}, err
		}
		limit := q.Limit
		switch {
		case limit == 0:
			limit = DefaultEventPage
		case limit < 0 || limit > MaxEventPage:
			return EventPage{}, domain.InvalidParameter("limit", "limit must be between 1 and "+strconv.Itoa(MaxEventPage))
		}
		types, err := domain.ParseEventTypes("types", q.Types)
		if err != nil {
			return EventPage{}, err
		}
		es, err := h.events.ListEvents(ctx, q.Workspace, q.Mode, ports.EventFilter{AfterSeq: after, Types: types, Limit: limit + 1})
		if err != nil {
			return EventPage{}, err
		}
		page := EventPage{Events: es}
		if len(es) > limit {
			page.Events, page.More = es[:limit], true
		}
		if n := len(page.Events); n > 0 {
			after = page.Events[n-1].Seq
		}
		page.NextCursor = FormatEventCursor(after)
		return page, nil
	})
}

// cursorPrefix marks the pull API's cursors, so that a cursor of another
// list, or a made-up one, is refused rather than read as a place.
const cursorPrefix = "seq:"

// FormatEventCursor is the opaque cursor that continues after the event
// of sequence seq.
func FormatEventCursor(seq int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.FormatInt(seq, 10)))
}

// ParseEventCursor reads a cursor FormatEventCursor made; empty is the
// start (0). Anything else is invalid_parameter on after.
func ParseEventCursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	bad := domain.InvalidParameter("after", "after is not a cursor this API returned: pass the nextCursor of a previous page, or nothing to start from the oldest event kept")
	if len(s) > 64 {
		return 0, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, bad
	}
	digits, ok := strings.CutPrefix(string(b), cursorPrefix)
	if !ok {
		return 0, bad
	}
	seq, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || seq < 0 || strconv.FormatInt(seq, 10) != digits {
		return 0, bad
	}
	return seq, nil
}
