package media

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/heraldhq/herald/domain"
)

// errNoSlot says no fetch slot became free within the wait.
var errNoSlot = errors.New("media: no fetch slot free in time")

// slots bounds the fetches running at once: all of them, those of one
// workspace, and those of one key. A workspace can then never hold the
// whole pool: the others always find some of it free. A caller waits for a
// slot at most a fixed time.
type slots struct {
	total, perWorkspace, perKey int
	wait                        time.Duration

	mu         sync.Mutex
	used       int
	workspaces map[domain.WorkspaceID]int
	keys       map[domain.KeyID]int
	freed      chan struct{} // closed, and replaced, whenever a slot is freed
}

func newSlots(total, perWorkspace, perKey int, wait time.Duration) *slots {
	return &slots{total: total, perWorkspace: perWorkspace, perKey: perKey, wait: wait,
		workspaces: map[domain.WorkspaceID]int{}, keys: map[domain.KeyID]int{}, freed: make(chan struct{})}
}

// acquire takes a slot for caller, waiting while the pool, caller's
// workspace or caller's key has none free: at most s.wait, after which it
// returns errNoSlot, and no longer than ctx lasts, whose error it returns
// then. release gives the slot back.
func (s *slots) acquire(ctx context.Context, caller domain.Principal) (release func(), err error) {
	var timeout <-chan time.Time
	for {
		s.mu.Lock()
		if s.used < s.total && s.workspaces[caller.Workspace] < s.perWorkspace && s.keys[caller.Key] < s.perKey {
			s.used++
			s.workspaces[caller.Workspace]++
			s.keys[caller.Key]++
			s.mu.Unlock()
			return func() { s.release(caller) }, nil
		}
		freed := s.freed
		s.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(s.wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-freed:
		case <-timeout:
			return nil, errNoSlot
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (s *slots) release(caller domain.Principal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used--
	if s.workspaces[caller.Workspace]--; s.workspaces[caller.Workspace] == 0 {
		delete(s.workspaces, caller.Workspace)
	}
	if s.keys[caller.Key]--; s.keys[caller.Key] == 0 {
		delete(s.keys, caller.Key)
	}
	close(s.freed)
	s.freed = make(chan struct{})
}
