#!/usr/bin/env bash
# Usage: refcheck_cmp.sh A B : compares every summary in A with B's, with and without the events line.
A=$1; B=$2; bad=0; ev=0
for f in "$A"/*.json; do
  b=$(basename "$f")
  if ! cmp -s "$f" "$B/$b"; then
    if cmp -s <(grep -v '"events"' "$f") <(grep -v '"events"' "$B/$b"); then ev=$((ev+1)); echo "events differ only: $b";
    else bad=$((bad+1)); echo "DIFFERS: $b"; fi
  fi
done
echo "compared $(ls "$A"/*.json | wc -l): $bad differ beyond events, $ev differ in events only"
[ $bad -eq 0 ]
