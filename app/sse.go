package app

import (
	"encoding/json"
	"sync"

	"gantry/internal/events"
)

// hub fans events out to browser-mode clients. Post is called by the emitter while it holds its
// lock, so it never blocks: each client has a buffered queue, read in order by its own request.
// A client too slow to keep up is dropped; EventSource reconnects and the page reloads its state.
type hub struct {
	mu      sync.Mutex
	clients map[chan []byte]struct{}
}

const clientQueue = 1024

func newHub() *hub { return &hub{clients: map[chan []byte]struct{}{}} }

func (h *hub) Post(ev events.Event) {
	data, err := json.Marshal(ev)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.clients {
		select {
		case c <- data:
		default:
			delete(h.clients, c)
			close(c)
		}
	}
}

func (h *hub) subscribe() chan []byte {
	c := make(chan []byte, clientQueue)
	h.mu.Lock()
	h.clients[c] = struct{}{}
	h.mu.Unlock()
	return c
}

func (h *hub) unsubscribe(c chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.clients[c]; ok {
		delete(h.clients, c)
		close(c)
	}
}
