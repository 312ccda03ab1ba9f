package main

import "testing"

// BenchmarkLoop is agentbench's loop row as a Go benchmark, for profiling:
//
//	go test -run '^$' -bench Loop -cpuprofile cpu.out ./internal/agent/cmd/agentbench
//
// One op is a whole run of loopIterations reads and an answer; the setup (files, database,
// fake Ollama) is outside the timer, though not outside a CPU profile.
func BenchmarkLoop(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s, err := newLoopSession()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		err = s.run()
		b.StopTimer()
		s.close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*loopIterations), "µs/iteration")
}
