package lsp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// groupMembers are the live processes of process group pgid, from /proc (zombies left out).
func groupMembers(pgid int) []int {
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

// waitGone waits until each process has exited, for at most bound in all: a pidfd becomes
// readable when its process ends, so this waits on the kernel, not on a clock.
func waitGone(pids []int, bound time.Duration) {
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
