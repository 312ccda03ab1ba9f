#!/usr/bin/env bash
# Times search_workspace's engine (internal/search) against ripgrep on the Go standard library
# source, for a literal, a case-insensitive literal and a regex, and checks both find the same
# number of matching lines. Prints: pattern | gantry ms | rg ms | ratio | matches (same?).
# Each time is the median of RUNS runs (default 5); SEARCH_BENCH_ROOT picks another tree.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${SEARCH_BENCH_ROOT:-$(go env GOROOT)/src}
runs=${RUNS:-5}

if ! command -v rg >/dev/null; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get install -y ripgrep >/dev/null 2>&1 ||
    { $sudo apt-get update >/dev/null && $sudo apt-get install -y ripgrep >/dev/null; }
fi

mkdir -p test-output
bench=test-output/searchbench
go build -o "$bench" ./internal/search/cmd/searchbench

# Makes rg search exactly the files Search does: .gitignore files count even outside a git
# repository (the Go tree is not one), hidden files are searched, and .ignore, .rgignore, the
# global gitignore and ignore files above the root do not count. Both skip binary files and
# never follow symlinks. rg is timed as a process, Search in-process (as the app calls it);
# starting rg costs a few ms.
rg_flags=(--no-require-git --hidden --no-ignore-dot --no-ignore-global --no-ignore-parent
  --count --no-messages)

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# rg_median FLAGS PATTERN: prints "median_ms matches".
rg_median() {
  local times=() count start
  for ((i = 0; i < runs; i++)); do
    start=$(now_ms)
    count=$(rg "${rg_flags[@]}" $1 -- "$2" "$root" | awk -F: '{ s += $NF } END { print s + 0 }')
    times+=($(($(now_ms) - start)))
  done
  echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$((runs / 2 + 1))p") $count"
}

# One case per line: label | pattern | searchbench flags | rg flags. The regex reads the same
# in both engines' syntax.
cases='literal|func main||-F
case-insensitive|readall|-i|-F -i
regex|func \(\w+ \*?\w+\) Read|-regex|'

printf '%-44s %10s %8s %7s  %s\n' pattern "gantry ms" "rg ms" ratio "matches (same?)"
status=0
while IFS='|' read -r kind pattern ours theirs; do
  rg "${rg_flags[@]}" $theirs -- "$pattern" "$root" >/dev/null || true # warm the page cache
  read -r g_ms g_n < <("$bench" -root "$root" -runs "$runs" $ours -- "$pattern")
  read -r r_ms r_n < <(rg_median "$theirs" "$pattern")
  same=yes; [[ $g_n == "$r_n" ]] || { same="NO: rg has $r_n"; status=1; }
  printf '%-44s %10.1f %8d %7.2f  %s %s\n' "$kind: $pattern" "$g_ms" "$r_ms" \
    "$(awk -v g="$g_ms" -v r="$r_ms" 'BEGIN { print g / (r > 0 ? r : 1) }')" "$g_n" "$same"
done <<<"$cases"
exit $status
