package fakeollama

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/errtypes"
	"github.com/ollama/ollama/types/model"
)

// pullSteps is how many progress lines the big layer of a fresh pull reports.
const pullSteps = 5

func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	var req api.PullRequest
	if !decodeRequest(w, r, &req) {
		return
	}
	n := model.ParseName(cmp.Or(req.Model, req.Name))
	if !n.IsValid() {
		writeError(w, http.StatusBadRequest, errtypes.InvalidModelNameErrMsg)
		return
	}

	if req.Stream != nil && !*req.Stream {
		// Ollama runs the whole pull and answers with the last progress line.
		var last api.ProgressResponse
		err := s.pull(r.Context(), n, func(p api.ProgressResponse) bool { last = p; return true })
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, last)
		return
	}

	out := &stream{w: w}
	if err := s.pull(r.Context(), n, func(p api.ProgressResponse) bool { return out.send(p) }); err != nil {
		out.fail(err.Error())
	}
}

// pull replays Ollama's progress sequence and installs the model at "writing manifest".
// Layers already present (a re-pull) report as complete at once, as Ollama's blob cache does.
func (s *Server) pull(ctx context.Context, n model.Name, emit func(api.ProgressResponse) bool) error {
	s.mu.Lock()
	delay, gate := s.script.PullDelay, s.pullGate
	installed, cached := find(s.script.Models, n)
	m, found := find(s.script.Library, n)
	if !found {
		m, found = installed, cached
	}
	s.mu.Unlock()

	sent := false
	report := func(p api.ProgressResponse) error {
		if sent && !sleep(ctx, delay) || !emit(p) {
			return errors.New("client went away")
		}
		sent = true
		return nil
	}

	if err := report(api.ProgressResponse{Status: "pulling manifest"}); err != nil {
		return err
	}
	if !found {
		return errors.New("pull model manifest: file does not exist")
	}

	m = m.withDefaults()
	m.Name = n.DisplayShortest()
	for layer, size := range []int64{m.Size, 1024, 4096, 3072} {
		d := "sha256:" + sha256Hex(fmt.Sprintf("%s#%d", m.Name, layer))
		first := int64(0)
		if cached || layer > 0 {
			first = pullSteps
		}
		for part := first; part <= pullSteps; part++ {
			p := api.ProgressResponse{Status: "pulling " + d[7:19], Digest: d, Total: size, Completed: size * part / pullSteps}
			if err := report(p); err != nil {
				return err
			}
			if gate != nil && part == pullSteps/2 {
				select {
				case <-gate:
				case <-ctx.Done():
					return errors.New("client went away")
				}
			}
		}
	}
	for _, status := range []string{"verifying sha256 digest", "writing manifest"} {
		if err := report(api.ProgressResponse{Status: status}); err != nil {
			return err
		}
	}

	m.ModifiedAt = time.Now().UTC()
	s.mu.Lock()
	if i := indexOf(s.script.Models, n); i >= 0 {
		s.script.Models[i] = m
	} else {
		s.script.Models = append(s.script.Models, m)
	}
	s.mu.Unlock()

	return report(api.ProgressResponse{Status: "success"})
}
