package terminal

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

const (
	pollInterval = 10 * time.Millisecond
	// killWait bounds the wait for the kernel to finish off a SIGKILLed group.
	killWait = 200 * time.Millisecond
)

// stopGroup ends every process in the group: SIGTERM so they can clean up, then SIGKILL for
// whatever is still there after grace. It returns once the group is gone or killWait after the
// SIGKILL, whichever comes first.
func stopGroup(pgid int, grace time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGone(pgid, grace) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	waitGone(pgid, killWait)
}

func waitGone(pgid int, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pollInterval)
	}
	return true
}

// groupAlive reports whether a process of the group is still running. kill(-pgid, 0) alone
// would also count zombies, and some inits (containers, VMs) reap orphans only now and then;
// waiting on those would turn every stop into a full grace period. So on Linux it looks in
// /proc for a member that is not a zombie.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited while we looked
		}
		if state, group, ok := parseStat(stat); ok && group == pgid && state != 'Z' {
			return true
		}
	}
	return false
}

// parseStat reads the state and process group from /proc/<pid>/stat:
// "pid (comm) state ppid pgrp ...", where comm may itself contain spaces and parentheses.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	return fields[0][0], pgrp, err == nil
}
