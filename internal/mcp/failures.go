package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"gantry/internal/fsutil"
)

// FailureKind is why a call failed for good.
type FailureKind string

const (
	FailureTimeout  FailureKind = "timeout"  // no answer in time
	FailureServer   FailureKind = "server"   // the server could not be started or reached
	FailureProtocol FailureKind = "protocol" // the server refused or broke the call
	FailureTool     FailureKind = "tool"     // the tool ran and said it failed
)

// Failure is one call that failed for good, after its retries: reference 003's dead-letter
// queue, kept for the person to look into (Settings → Tools).
type Failure struct {
	Time      time.Time   `json:"time"`
	Workspace string      `json:"workspace"`
	Server    string      `json:"server"`
	Tool      string      `json:"tool"`
	Arguments string      `json:"arguments"` // JSON, cut to maxLoggedArgs
	Error     string      `json:"error"`
	Kind      FailureKind `json:"kind"`
	Attempts  int         `json:"attempts"`
}

// failuresKept is how many failures the log keeps, the newest.
const failuresKept = 200

// FailureLog keeps failed calls in a JSON-lines file in Gantry's data folder: appended as they
// happen, trimmed to the newest failuresKept when it holds twice that. A line that cannot be
// read is skipped, so a torn write loses one entry, never the log.
type FailureLog struct {
	path string

	mu    sync.Mutex
	lines int // lines in the file, -1 until counted
}

// OpenFailureLog returns the log at path; the file is made on the first failure.
func OpenFailureLog(path string) *FailureLog { return &FailureLog{path: path, lines: -1} }

// Add appends f.
func (l *FailureLog) Add(f Failure) error {
	line, err := json.Marshal(f)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lines < 0 {
		all, err := l.read()
		if err != nil {
			return err
		}
		l.lines = len(all)
	}
	file, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("recording a failed MCP call: %w", err)
	}
	if torn(file) {
		// A write cut short left half a line: end it, or this entry would join it and be lost.
		line = append([]byte{'\n'}, line...)
	}
	_, err = file.Write(append(line, '\n'))
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording a failed MCP call: %w", err)
	}
	l.lines++
	if l.lines >= 2*failuresKept {
		return l.trim()
	}
	return nil
}

// trim rewrites the file with the newest failuresKept entries (mu held).
func (l *FailureLog) trim() error {
	all, err := l.read()
	if err != nil {
		return err
	}
	all = all[max(0, len(all)-failuresKept):]
	var b bytes.Buffer
	for _, f := range all {
		line, _ := json.Marshal(f)
		b.Write(append(line, '\n'))
	}
	if err := fsutil.WriteFile(l.path, b.Bytes()); err != nil {
		return fmt.Errorf("trimming the failed MCP calls: %w", err)
	}
	l.lines = len(all)
	return nil
}

// List returns the kept failures, newest first.
func (l *FailureLog) List() ([]Failure, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	all, err := l.read()
	if err != nil {
		return nil, err
	}
	all = all[max(0, len(all)-failuresKept):]
	slices.Reverse(all)
	return all, nil
}

// Clear forgets every failure.
func (l *FailureLog) Clear() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	l.lines = 0
	return nil
}

func (l *FailureLog) read() ([]Failure, error) {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, os.ErrNotExist) {
		return []Failure{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the failed MCP calls: %w", err)
	}
	out := []Failure{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var f Failure
		if json.Unmarshal(sc.Bytes(), &f) == nil {
			out = append(out, f)
		}
	}
	return out, nil
}

// torn reports whether the file's last line has no newline.
func torn(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false
	}
	var last [1]byte
	_, err = f.ReadAt(last[:], fi.Size()-1)
	return err == nil && last[0] != '\n'
}
