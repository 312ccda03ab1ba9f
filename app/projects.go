package app

import "sync"

// perProject keeps one manager of servers per open project (its language servers, its MCP
// servers): made on first use, closed when the project closes or the app quits.
type perProject[M interface{ Close() }] struct {
	create func(root string) M

	mu    sync.Mutex
	items map[string]M
}

func newPerProject[M interface{ Close() }](create func(root string) M) perProject[M] {
	return perProject[M]{create: create, items: map[string]M{}}
}

// For is root's manager.
func (p *perProject[M]) For(root string) M {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.items[root]; ok {
		return m
	}
	m := p.create(root)
	p.items[root] = m
	return m
}

// Close stops root's servers.
func (p *perProject[M]) Close(root string) {
	p.mu.Lock()
	m, ok := p.items[root]
	delete(p.items, root)
	p.mu.Unlock()
	if ok {
		m.Close()
	}
}

// CloseAll stops every project's servers, side by side.
func (p *perProject[M]) CloseAll() {
	p.mu.Lock()
	items := p.items
	p.items = map[string]M{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range items {
		wg.Go(m.Close)
	}
	wg.Wait()
}
