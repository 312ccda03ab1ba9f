// Package procgroup looks after the process groups Gantry starts servers in (language servers,
// MCP servers): who is in one, how much memory it holds, and ending all of it, so that nothing a
// server started outlives its stop.
package procgroup

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Members are the live processes of process group pgid, from /proc (zombies left out).
func Members(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the parenthesised name: state, ppid, pgrp, …
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 2 && fields[2] == strconv.Itoa(pgid) && fields[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// Kill ends process group pgid with SIGKILL and waits until every process of it is gone, for at
// most bound.
func Kill(pgid int, bound time.Duration) {
	members := Members(pgid)
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	WaitGone(members, bound)
}

// WaitGone waits until each process has exited, for at most bound in all: a pidfd becomes
// readable when its process ends, so this waits on the kernel, not on a clock.
func WaitGone(pids []int, bound time.Duration) {
	deadline := time.Now().Add(bound)
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		left := int(time.Until(deadline).Milliseconds())
		if left > 0 {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				if _, err := unix.Poll(fds, left); err != unix.EINTR {
					break
				}
			}
		}
		unix.Close(fd)
	}
}

// RSS sums the resident memory of the processes in process group pgid (a server and the
// processes it started), from /proc; 0 where /proc cannot say.
func RSS(pgid int) int64 {
	var total int64
	for _, p := range Members(pgid) {
		statm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "statm"))
		if err != nil {
			continue
		}
		// The second field is the resident set, in pages.
		if f := strings.Fields(string(statm)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			total += pages * int64(os.Getpagesize())
		}
	}
	return total
}

// Tail keeps the last Limit bytes written to it: a server's stderr, for its error messages.
type Tail struct {
	Limit int

	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - t.Limit; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// Reset forgets what was written (a server starts again).
func (t *Tail) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Reset()
}

// LastLines is the end of s, n lines at most.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
