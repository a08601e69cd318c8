package media

import (
	"container/list"
	"sync"
	"time"

	"github.com/heraldhq/herald/domain"
)

// cacheKey names one inspection: the same URL inspected for another header
// kind reads up to another limit.
type cacheKey struct {
	url    string
	header domain.HeaderFormat
}

type cacheEntry struct {
	key     cacheKey
	outcome outcome
	expires time.Time
}

// cache holds inspection outcomes until they expire, at most size of them;
// when full it forgets the entry stored longest ago.
type cache struct {
	mu    sync.Mutex
	size  int
	items map[cacheKey]*list.Element // of *cacheEntry
	order *list.List                 // oldest first
}

func newCache(size int) *cache {
	return &cache{size: size, items: make(map[cacheKey]*list.Element), order: list.New()}
}

// outcome is what one inspection found: info, or the domain error that
// refused it.
type outcome struct {
	info domain.MediaInfo
	err  *domain.Error
}

// result returns the outcome as InspectMedia does, with a copy of the error
// so that no caller can change what the cache holds.
func (o outcome) result() (domain.MediaInfo, error) {
	if o.err != nil {
		errCopy := *o.err
		return domain.MediaInfo{}, &errCopy
	}
	return o.info, nil
}

// get returns the outcome stored for k if it has not expired at now.
func (c *cache) get(k cacheKey, now time.Time) (outcome, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return outcome{}, false
	}
	e := el.Value.(*cacheEntry)
	if !now.Before(e.expires) {
		c.order.Remove(el)
		delete(c.items, k)
		return outcome{}, false
	}
	return e.outcome, true
}

// put stores o until expires.
func (c *cache) put(k cacheKey, o outcome, expires time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.Remove(el)
		delete(c.items, k)
	}
	for c.order.Len() >= c.size {
		oldest := c.order.Front()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*cacheEntry).key)
	}
	c.items[k] = c.order.PushBack(&cacheEntry{key: k, outcome: o, expires: expires})
}

// len is the number of entries held, expired or not.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
