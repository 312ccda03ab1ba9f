#!/usr/bin/env bash
# make bench: speed and memory of the hot paths, as tables. Where a reference tool exists
# (ripgrep for search) it is measured in the same run; the parsers have none. Last comes issue
# 18's table of goals, each with this run's number beside it and whether it is met.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p test-output
raw=test-output/bench.txt

# A section that fails is named at the end, after the summary, and fails make bench; the others
# still run, so the summary shows every row it has numbers for.
failed=()

echo "── parsers (median of 3)"
go test -run '^$' -benchmem -count 3 \
  -bench 'BenchmarkExtract1MB|BenchmarkExtractKnown1MB|BenchmarkDetectPartialStream|BenchmarkDetectPartialKnownStream|BenchmarkAnalyzeCommandPipeline200' \
  ./internal/toolcall ./internal/safety >"$raw" || failed+=(parsers)

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
scripts/bench-search.sh || failed+=(search)

# Every section's "name<TAB>value<TAB>unit" lines are kept in $rows/NAME.tsv for the summary
# of issue 18's goals at the end.
rows=test-output/bench-rows
rm -rf "$rows" && mkdir -p "$rows"

# table NAME PROGRAM: runs a bench program that prints "name<TAB>value<TAB>unit" lines.
table() {
  go run "$2" | keep "$1" || failed+=("$1")
}
# keep NAME: tabulates the lines on stdin and keeps them as $rows/NAME.tsv.
keep() { tee "$rows/$1.tsv" | columns; }
columns() { awk -F'\t' '{ printf "%-46s %12s %s\n", $1, $2, $3 }'; }

# goals FILE…: issue 18's table (what | now | goal | met?) as Markdown, its "now" read from the
# rows kept by this run. A row whose numbers are missing (a section failed) says so.
goals() {
  awk -F'\t' '
    { f = FILENAME; sub(/.*\//, "", f); sub(/\.tsv$/, "", f); v[f ":" $1] = $2 }
    function has(k) { return (k in v) && v[k] != "" }
    function ms(x) { return sprintf("%d ms", x + 0.5) }
    function row(what, now, goal, met) { printf "| %s | %s | %s | %s |\n", what, now, goal, met }
    function yes(ok) { return ok ? "yes" : "no" }
    END {
      print "| what | now | goal | met? |"
      print "| --- | --- | --- | --- |"
      s = "checkpoint:snapshot_all_wall"; u = "checkpoint:undo_all_wall"; t = "checkpoint:snapshot_plus_undo_all_wall"
      met = has(t) ? yes(v[t] < 1000) " (together " ms(v[t]) ")" : "?"
      row("checkpoint of 1,000 files / 50 MB: snapshot", has(s) ? ms(v[s]) : "not measured", "snapshot + undo-all < 1 s together", met)
      row("undo-all of those 1,000 files", has(u) ? ms(v[u]) : "not measured", "(see above)", met)

      o = "diff:diff_20k_lines_200_edits_unified"; g = "diff:diff_20k_lines_200_edits_git_diff_process"
      if (has(o) && has(g))
        row("diff, 20k-line file with 200 edits", sprintf("%.1f ms in process vs `git diff --no-index` %.1f ms as a whole process", v[o], v[g]), "≤ git'"'"'s time", yes(v[o] <= v[g]))
      else
        row("diff, 20k-line file with 200 edits", "not measured", "≤ git'"'"'s time", "?")

      p = "window:Gantry: first painted content"; b = "window:blank Wails: first painted content"
      if (has(p) && has(b) && v[b] > 0)
        row("first painted content", sprintf("%s vs a blank Wails window'"'"'s %s (%.2f×)", ms(v[p]), ms(v[b]), v[p] / v[b]), "≤ 1.3× the blank window", yes(v[p] / v[b] <= 1.3))
      else
        row("first painted content", "not measured", "≤ 1.3× the blank window", "?")

      # Gantry own cost: the wall time less the time the fake server spent answering (decoding
      # the request, encoding the answer), which is the share of Ollama, not of the loop.
      a = "agent:loop overhead, 50 read iterations"; o = "agent:loop overhead: Gantry'"'"'s own (wall less the fake server)"
      f = "agent:loop overhead: the fake server answering"
      if (has(o) && has(a) && has(f))
        row("agent loop overhead per iteration (fake model answering at once)", sprintf("%.2f ms Gantry'"'"'s own (%.2f ms wall per iteration, of which the fake server answering %.2f ms)", v[o] / 1000, v[a] / 1000, v[f] / 1000), "< 1 ms", yes(v[o] < 1000))
      else
        row("agent loop overhead per iteration (fake model answering at once)", has(a) ? sprintf("%.2f ms wall", v[a] / 1000) : "not measured", "< 1 ms", "?")

      r = "reopen:reopen a 60-run session: all turns on screen (median of 5)"; k = "reopen-backend:replay_backend"
      now = has(r) ? ms(v[r]) : "not measured"
      if (has(k)) now = now sprintf(" (the backend'"'"'s share, replaying and encoding: %.1f ms)", v[k])
      row("reopening a 60-run session, all turns on screen", now, "< 300 ms", has(r) ? yes(v[r] < 300) : "?")
      # The same session picked in the Chats list of a window started on an empty chat: how a
      # person reopens it in the app (a restart remembers no chat), without the page load.
      c = "reopen:open a 60-run session from the Chats list: all turns on screen (median of 5)"
      row("(the same, picked in the Chats list)", has(c) ? ms(v[c]) : "not measured", "< 300 ms", has(c) ? yes(v[c] < 300) : "?")
    }' "$@"
}

echo
echo "── tools"
table tools ./internal/tools/cmd/toolbench

echo
echo "── code intelligence on this repository, next to gopls's own CLI (cold: median of 3, warm: of 20)"
table code ./internal/tools/cmd/codebench

echo
echo "── checkpoints: 1,000 files / 50 MB"
table checkpoint ./internal/checkpoint/cmd/checkpointbench

echo
echo "── diff: 20k-line file with 200 edits, next to git diff --no-index"
table diff ./internal/diff/cmd/diffbench

echo
echo "── UI event log: 10,000 events appended, then replayed in pages of 500"
table events ./internal/events/cmd/eventbench

echo
echo "── agent: prompt sizes and loop overhead"
table agent ./internal/agent/cmd/agentbench

# The UI sections measure the page as the source is now, not a dist/ left by an earlier build:
# when it does not build, there is nothing to measure.
if ! (cd frontend && npm run build >/dev/null); then
  failed+=(frontend)
  rm -rf frontend/dist
fi

echo
echo "── desktop window under Xvfb, next to a blank Wails v2 window (median of 5 launches each, taking turns)"
echo "   mapped: a visible window with the title exists; painted: its pixels show page content"
echo "   (3+ colours besides the background on 1%+ of a 4-px grid); memory after 3 s idle, summed"
echo "   over the process and its WebKitWebProcess / WebKitNetworkProcess children"
scripts/bench-ui.sh window | keep window || failed+=(window)

echo
echo "── browser UI while the model streams ~500 tokens/s for ~10 s (gantry serve + headless Chromium)"
scripts/bench-ui.sh stream | keep stream || failed+=(stream)
echo
echo "── reopening a long session: 60 runs replayed from the event log (gantry serve + headless Chromium)"
scripts/bench-ui.sh reopen | keep reopen || failed+=(reopen)
echo
echo "── the same session's replay in the backend alone: store read, and JSON as gantry serve sends it (median of 9)"
table reopen-backend ./internal/events/cmd/reopenbench

echo
echo "── issue 18: where each goal stands, from the numbers above"
goals "$rows"/*.tsv
if ((${#failed[@]})); then
  echo "bench: these sections failed: ${failed[*]}" >&2
  exit 1
fi
