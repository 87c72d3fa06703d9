#!/usr/bin/env bash
# How big the commits since BASE are, measured the two ways a submission is limited: packed as git
# sends them (limit 512 MiB) and their diffs added up as text (limit 256 MiB; a file added in one
# commit and changed or removed in a later one counts each time). A session's whole submission is
# refused when either is over, so run this before stopping, and after each regeneration of
# generated/ (the corpus is tens of MB: every commit that rewrites it counts again).
#
#   tools/submission-size.sh [BASE]     # default BASE: the newest commit older than 4 hours
#
# Exit 1 when either measure is over half its limit (room for the commits still to come).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
base="${1:-$(git rev-list -1 --before='4 hours ago' HEAD)}"
[ -n "$base" ] || { echo "submission-size: no BASE given and no commit older than 4 hours" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

commits=$(git rev-list --count "$base..HEAD")
if [ "$commits" = 0 ]; then
  echo "submission-size: no commits since $(git rev-parse --short "$base")"
  exit 0
fi
git bundle create -q "$tmp/b" "$base..HEAD" 2>/dev/null || git bundle create "$tmp/b" "$base..HEAD" >/dev/null 2>&1
packed=$(stat -c %s "$tmp/b")
# --binary: binary files count with their contents, as a text diff of them would
diffs=$(git log -p --binary --no-color --format= "$base..HEAD" | wc -c)
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "since $(git rev-parse --short "$base"): $commits commits"
echo "packed: $(mib "$packed") of 512 MiB"
echo "diffs:  $(mib "$diffs") of 256 MiB"
echo "diffs by top-level folder:"
git log -p --binary --no-color --format= "$base..HEAD" \
  | awk '/^diff --git / { path = $4; sub(/^b\//, "", path); top = path; if (sub(/\/.*/, "", top)) top = top "/" }
         { bytes[top] += length($0) + 1 }
         END { for (t in bytes) if (t != "") printf "%12d %s\n", bytes[t], t }' \
  | sort -rn | head -8 | awk '{ printf "  %8.1f MiB  %s\n", $1 / 1048576, $2 }'
if [ "$packed" -gt $((256 * 1048576)) ] || [ "$diffs" -gt $((128 * 1048576)) ]; then
  echo "submission-size: over half a limit: squash or drop regenerations of generated/ before stopping" >&2
  exit 1
fi
