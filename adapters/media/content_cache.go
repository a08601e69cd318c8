package media

import (
	"bufio"
	"cmp"
	"container/list"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CacheConfig places the local cache of inbound media files
// (HERALD_MEDIA_CACHE_DIR) and bounds its size (HERALD_MEDIA_CACHE_MAX).
type CacheConfig struct {
	Dir      string
	MaxBytes int64
}

// ContentCache keeps media files on disk, one file per media id holding
// its type on the first line and its bytes after, and forgets the least
// recently read files once the total passes MaxBytes. What the directory
// holds at start is taken in, oldest first.
type ContentCache struct {
	dir string
	max int64

	mu    sync.Mutex
	total int64
	order *list.List // of *cached, most recently used first
	byID  map[domain.MediaID]*list.Element
}

type cached struct {
	id   domain.MediaID
	size int64 // of the file on disk
}

// NewContentCache opens (and makes) the cache directory.
func NewContentCache(cfg CacheConfig) (*ContentCache, error) {
	if cfg.Dir == "" || cfg.MaxBytes <= 0 {
		return nil, errors.New("media: the cache needs a directory and a positive size")
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("media: making the cache directory: %w", err)
	}
	c := &ContentCache{dir: cfg.Dir, max: cfg.MaxBytes, order: list.New(), byID: map[domain.MediaID]*list.Element{}}
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("media: reading the cache directory: %w", err)
	}
	type found struct {
		cached
		mod int64
	}
	var files []found
	for _, e := range entries {
		id, err := domain.ParseMediaID(e.Name())
		if err != nil || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, found{cached{id, info.Size()}, info.ModTime().UnixNano()})
	}
	slices.SortFunc(files, func(a, b found) int { return cmp.Compare(a.mod, b.mod) })
	for _, f := range files {
		c.byID[f.id] = c.order.PushFront(&cached{f.id, f.size})
		c.total += f.size
	}
	c.mu.Lock()
	c.evict(0)
	c.mu.Unlock()
	return c, nil
}

// OpenMedia opens the cached file and marks it used.
func (c *ContentCache) OpenMedia(id domain.MediaID) (io.ReadCloser, string, int64, bool) {
	c.mu.Lock()
	e, ok := c.byID[id]
	if ok {
		c.order.MoveToFront(e)
	}
	c.mu.Unlock()
	if !ok {
		return nil, "", 0, false
	}
	f, err := os.Open(filepath.Join(c.dir, string(id)))
	if err != nil {
		return nil, "", 0, false
	}
	r := bufio.NewReader(f)
	line, err := r.ReadString('\n')
	if err != nil {
		f.Close()
		return nil, "", 0, false
	}
	size := e.Value.(*cached).size - int64(len(line))
	return readCloser{r, f}, strings.TrimSuffix(line, "\n"), size, true
}

type readCloser struct {
	io.Reader
	io.Closer
}

// PutMedia writes the file (through a temporary file, renamed into
// place), then forgets the least recently used files past the bound. A
// file larger than the bound is not kept.
func (c *ContentCache) PutMedia(id domain.MediaID, mimeType string, content []byte) error {
	if strings.ContainsAny(mimeType, "\r\n") {
		mimeType = "application/octet-stream"
	}
	size := int64(len(mimeType) + 1 + len(content))
	if size > c.max {
		return nil
	}
	tmp, err := os.CreateTemp(c.dir, ".put-*")
	if err != nil {
		return fmt.Errorf("media: caching %s: %w", id, err)
	}
	_, err = io.WriteString(tmp, mimeType+"\n")
	if err == nil {
		_, err = tmp.Write(content)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(c.dir, string(id)))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("media: caching %s: %w", id, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byID[id]; ok {
		c.total -= e.Value.(*cached).size
		c.order.Remove(e)
	}
	c.byID[id] = c.order.PushFront(&cached{id, size})
	c.total += size
	c.evict(1)
	return nil
}

// evict removes least recently used files, keeping the first keep, until
// the total is within the bound. The caller holds mu.
func (c *ContentCache) evict(keep int) {
	for c.total > c.max && c.order.Len() > keep {
		e := c.order.Back()
		v := e.Value.(*cached)
		c.order.Remove(e)
		delete(c.byID, v.id)
		c.total -= v.size
		os.Remove(filepath.Join(c.dir, string(v.id)))
	}
}

// Size is the bytes the cache holds now.
func (c *ContentCache) Size() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

var _ ports.MediaCache = (*ContentCache)(nil)
