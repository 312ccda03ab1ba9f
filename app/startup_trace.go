package app

import (
	"fmt"
	"os"
	"sync"
	"time"
)

// processStart is as close to exec as Go lets us get without reading /proc: package init.
var processStart = time.Now()

// traceStartup is set by GANTRY_TRACE_STARTUP=1: start-up steps are then printed to stderr with
// the milliseconds since the process started, to find what delays the first window.
var traceStartup = os.Getenv("GANTRY_TRACE_STARTUP") != ""

var traceMu sync.Mutex

// TraceStartup prints one start-up step when tracing is on; it costs nothing otherwise.
func TraceStartup(step string) {
	if !traceStartup {
		return
	}
	traceMu.Lock()
	defer traceMu.Unlock()
	fmt.Fprintf(os.Stderr, "startup %6.1f ms  %s\n", float64(time.Since(processStart).Microseconds())/1000, step)
}
