package fakeollama

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
)

// The helpers below reproduce what gin does for Ollama: c.JSON, c.String, ShouldBindJSON and
// server.streamResponse.

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func writeText(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, text)
}

// decodeRequest answers 400 the way Ollama's handlers do when the body is not the expected JSON.
func decodeRequest(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(r.Body).Decode(v)
	switch {
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "missing request body")
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
	default:
		return true
	}
	return false
}

// stream writes newline-delimited JSON, flushing each line so the client sees it at once.
type stream struct {
	w       http.ResponseWriter
	started bool
}

func (s *stream) send(v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		s.fail(err.Error())
		return false
	}
	if !s.started {
		s.w.Header().Set("Content-Type", "application/x-ndjson")
		s.started = true
	}
	if _, err := s.w.Write(append(b, '\n')); err != nil {
		return false
	}
	return http.NewResponseController(s.w).Flush() == nil
}

// fail ends the stream with an error: a plain 500 if nothing was sent yet, otherwise an
// {"error": …} line on the 200 stream, which is what api.Client turns into an error.
func (s *stream) fail(msg string) {
	if !s.started {
		writeError(s.w, http.StatusInternalServerError, msg)
		return
	}
	b, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = s.w.Write(append(b, '\n'))
}
