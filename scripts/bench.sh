#!/usr/bin/env bash
# make bench: speed and memory of the hot paths, as tables. Where a reference tool exists
# (ripgrep for search) it is measured in the same run; the parsers have none.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-output
raw=test-output/bench.txt
echo "── parsers (median of 3)"
go test -run '^$' -benchmem -count 3 \
  -bench 'BenchmarkExtract1MB|BenchmarkExtractKnown1MB|BenchmarkDetectPartialStream|BenchmarkDetectPartialKnownStream|BenchmarkAnalyzeCommandPipeline200' \
  ./internal/toolcall ./internal/safety | tee "$raw" >/dev/null

# Median of the three runs per benchmark: one noisy run on a shared machine does not decide.
awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    n[name]++; ns[name, n[name]] = $3
    for (i = 4; i <= NF; i++) {
      if ($(i+1) == "MB/s") mbs[name, n[name]] = $i
      if ($(i+1) == "B/op") bop[name] = $i
      if ($(i+1) == "allocs/op") aop[name] = $i
    }
    order[name] = order[name] ? order[name] : ++k; names[k] = name
  }
  function median(name, arr,   a, c, i, j, t) {
    c = n[name]; for (i = 1; i <= c; i++) a[i] = arr[name, i] + 0
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return a[int((c + 1) / 2)]
  }
  END {
    printf "%-34s %14s %10s %12s %10s\n", "benchmark", "time/op", "MB/s", "bytes/op", "allocs/op"
    for (i = 1; i <= k; i++) {
      name = names[i]; t = median(name, ns)
      unit = "ns"; if (t > 1e6) { t /= 1e6; unit = "ms" } else if (t > 1e3) { t /= 1e3; unit = "µs" }
      mb = (name, 1) in mbs ? sprintf("%.1f", median(name, mbs)) : "-"
      printf "%-34s %11.2f %-2s %10s %12s %10s\n", name, t, unit, mb, bop[name], aop[name]
    }
  }' "$raw"

echo
echo "── search_workspace engine vs ripgrep, Go source tree (median of 5)"
scripts/bench-search.sh

# table PROGRAM: runs a bench program that prints "name<TAB>value<TAB>unit" lines.
table() {
  go run "$1" | columns
}
columns() { awk -F'\t' '{ printf "%-46s %12s %s\n", $1, $2, $3 }'; }

echo
echo "── tools"
table ./internal/tools/cmd/toolbench

echo
echo "── code intelligence on this repository, next to gopls's own CLI (cold: median of 3, warm: of 20)"
table ./internal/tools/cmd/codebench

echo
echo "── checkpoints: 1,000 files / 50 MB"
table ./internal/checkpoint/cmd/checkpointbench

echo
echo "── diff: 20k-line file with 200 edits, next to git diff --no-index"
table ./internal/diff/cmd/diffbench

echo
echo "── UI event log: 10,000 events appended, then replayed in pages of 500"
table ./internal/events/cmd/eventbench

echo
echo "── agent: prompt sizes and loop overhead"
table ./internal/agent/cmd/agentbench

echo
echo "── desktop window under Xvfb, next to a blank Wails v2 window (median of 3)"
echo "   mapped: a visible window with the title exists; painted: its pixels show page content"
echo "   (3+ colours besides the background on 1%+ of a 4-px grid); memory after 3 s idle, summed"
echo "   over the process and its WebKitWebProcess / WebKitNetworkProcess children"
scripts/bench-ui.sh window | columns

echo
echo "── browser UI while the model streams ~500 tokens/s for ~10 s (gantry serve + headless Chromium)"
scripts/bench-ui.sh stream | columns
echo
echo "── reopening a long session: 60 runs replayed from the event log (gantry serve + headless Chromium)"
scripts/bench-ui.sh reopen | columns
