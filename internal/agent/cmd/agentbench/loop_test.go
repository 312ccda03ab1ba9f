package main

import (
	"testing"
	"time"
)

// BenchmarkLoop is agentbench's loop row as a Go benchmark, for profiling:
//
//	go test -run '^$' -bench Loop -cpuprofile cpu.out ./internal/agent/cmd/agentbench
//
// One op is a whole run of loopIterations reads and an answer; the setup (files, database,
// fake Ollama) is outside the timer, though not outside a CPU profile.
func BenchmarkLoop(b *testing.B) {
	b.ReportAllocs()
	var fake time.Duration
	for b.Loop() {
		b.StopTimer()
		s, err := newLoopSession()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		err = s.run()
		b.StopTimer()
		fake += s.fake.ChatTime()
		s.close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*loopIterations), "µs/iteration")
	b.ReportMetric(float64((b.Elapsed()-fake).Microseconds())/float64(b.N*loopIterations), "own-µs/iteration")
}
