package gitstate

import (
	"container/list"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// deltaBases remembers the objects that deltas in packs were applied to,
// by pack and offset, so that walking history through a packed object
// (each older progress.md a delta on a newer one, chains up to 50 deep)
// rebuilds each base once instead of once per object that needs it. The
// cache holds the most recently used bases up to deltaCacheBytes; a pack's
// content never changes under its name, so an entry never goes stale.
var deltaBases = newDeltaCache(64 << 20)

type deltaKey struct {
	pack string
	off  int64
}

type deltaEntry struct {
	key  deltaKey
	typ  plumbing.ObjectType
	data []byte
}

type deltaCache struct {
	mu    sync.Mutex
	max   int
	size  int
	order *list.List // front: most recently used
	items map[deltaKey]*list.Element
}

func newDeltaCache(max int) *deltaCache {
	return &deltaCache{max: max, order: list.New(), items: map[deltaKey]*list.Element{}}
}

// get returns a remembered base; its data must not be changed.
func (c *deltaCache) get(k deltaKey) (plumbing.ObjectType, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return 0, nil, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*deltaEntry)
	return e.typ, e.data, true
}

// put remembers a base, dropping the least recently used ones past max.
func (c *deltaCache) put(k deltaKey, typ plumbing.ObjectType, data []byte) {
	if len(data) > c.max/4 {
		return // one huge object would push out everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.order.PushFront(&deltaEntry{key: k, typ: typ, data: data})
	c.size += len(data)
	for c.size > c.max {
		el := c.order.Back()
		e := el.Value.(*deltaEntry)
		c.order.Remove(el)
		delete(c.items, e.key)
		c.size -= len(e.data)
	}
}
