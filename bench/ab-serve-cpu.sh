#!/bin/bash
# serve's CPU per request in two (or more) checkouts, each built (npm run build), measured in
# turn on the same machine: one serve per checkout on its own copy of the same 100k-group data,
# h2load --h1 -c 10 -n REQUESTS against each in alternating rounds (after one warm-up round),
# serve's utime + stime from /proc (Linux) per request; medians, and the median of the paired
# differences against the first checkout. On a shared machine the rates move with the
# neighbours' load; the CPU a request costs much less. Needs h2load (nghttp2-client).
#   bench/ab-serve-cpu.sh page|get ROUNDS REQUESTS CHECKOUT_A CHECKOUT_B...
#   (page: the sorted page of 50 under the organization; get: GET /iam/v2/groups/{org})
set -e
KIND=$1; ROUNDS=$2; N=$3; shift 3
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
PIDS=(); URLS=(); TOKENS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
ORG=$(node --input-type=module -e "import { populate } from '$HERE/populate.js'; console.log((await populate('$WORK/data', 100000)).org)")
k=0
for dir in "$@"; do
  cp -r "$WORK/data" "$WORK/data-$k"; rm -f "$WORK/data-$k/serve.lock" "$WORK/data-$k/serve.pid"; mkdir "$WORK/config-$k"
  PCTL_CONFIG_DIR="$WORK/config-$k" node "$dir/bin/pctl.js" serve --port 0 --data "$WORK/data-$k" --rate-limit off > "$WORK/out-$k" 2>&1 &
  PIDS+=($!); k=$((k+1))
done
for k in "${!PIDS[@]}"; do
  for _ in $(seq 100); do grep -q listening "$WORK/out-$k" 2>/dev/null && break; sleep 0.2; done
  URLS+=("$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/out-$k" | head -1)"); TOKENS+=("$(cat "$WORK/data-$k/owner.token")")
done
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for r in $(seq 0 "$ROUNDS"); do
  for k in "${!PIDS[@]}"; do
    if [ "$KIND" = page ]; then P="${URLS[$k]}/iam/v2/groups?order_by=name&page_size=50&uidp.descendants_of=$ORG"; else P="${URLS[$k]}/iam/v2/groups/$ORG"; fi
    c0=$(cpu "${PIDS[$k]}")
    out=$(h2load --h1 -c 10 -n "$N" -H "authorization: Bearer ${TOKENS[$k]}" "$P")
    c1=$(cpu "${PIDS[$k]}")
    echo "$out" | grep -q "$N succeeded" || { echo "$out" | tail -5 >&2; exit 1; }
    # clock ticks (1/100 s) -> us per request; round 0 is the warm-up
    [ "$r" -gt 0 ] && echo "$k $(( (c1 - c0) * 10000 / N ))" >> "$WORK/rows"
  done
done
node -e '
const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(" ").map(Number));
const dirs = process.argv.slice(2);
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const by = dirs.map((_, k) => rows.filter((r) => r[0] === k).map((r) => r[1]));
for (const [k, d] of dirs.entries()) console.log(`${d}: serve CPU per request, median ${med(by[k])} us (${by[k].join(" ")})`);
for (let k = 1; k < dirs.length; k++) console.log(`${dirs[k]} - ${dirs[0]}: median of paired differences ${med(by[k].map((x, i) => x - by[0][i]))} us`);
' "$WORK/rows" "$@"
