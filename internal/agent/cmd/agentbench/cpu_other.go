//go:build !unix

package main

import "time"

// cpuTime is 0 where the bench does not read it: only wall times are reported.
func cpuTime() time.Duration { return 0 }
