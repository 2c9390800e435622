#!/usr/bin/env bash
# Lighthouse scores of the pages people read most: home, a leaderboard,
# /warriors/ and two admin pages (a project's overview and its queues), on
# a phone (Lighthouse's default) and a desktop. Starts the tracker on a fresh embedded cluster with a
# project that has work done, signs an admin in for the admin pages, and
# prints one line per page and form factor: performance, accessibility,
# best practices, SEO. Reports land in $OUT (default /tmp/tracker-lighthouse).
#
# Needs Node.js and Chromium; Lighthouse itself comes from the npm
# registry at the pinned version. Usage: make lighthouse
set -euo pipefail
cd "$(dirname "$0")/.."

LIGHTHOUSE_VERSION=13.5.0
OUT=${OUT:-/tmp/tracker-lighthouse}
CHROME=${TRACKER_CHROME:-$(command -v chromium || command -v chromium-browser || command -v google-chrome)}
DATA=$(mktemp -d)
chmod o+x "$DATA" # the embedded cluster runs as the postgres user when started as root
PORT=${PORT:-18080}
BASE=http://127.0.0.1:$PORT
TRACKER=./bin/tracker

cleanup() {
	[ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
	rm -rf "$DATA"
}
trap cleanup EXIT
mkdir -p "$OUT"

TRACKER_PASSWORD='lighthouse keeper' $TRACKER admin create keeper --data-dir "$DATA" >/dev/null
$TRACKER project create demo --title "Demo project" --data-dir "$DATA" >/dev/null
$TRACKER project set demo "description=Saving the demo site before it closes." --data-dir "$DATA" >/dev/null
seq 1 2000 | sed 's/^/item:/' | $TRACKER items add demo --data-dir "$DATA" >/dev/null
$TRACKER serve --addr "127.0.0.1:$PORT" --data-dir "$DATA" 2>"$OUT/serve.log" &
SERVER=$!
until curl -fsS "$BASE/healthz" >/dev/null 2>&1; do
	kill -0 "$SERVER" || { cat "$OUT/serve.log"; exit 1; }
	sleep 0.2
done

# Some work done, by a few downloaders, so the board has rows and charts.
for nick in alice bob carol dave erin; do
	for _ in $(seq 1 8); do
		item=$(curl -fsS -X POST "$BASE/demo/request" -d "{\"downloader\":\"$nick\",\"version\":\"20261122.01\"}" | sed 's/.*"item_name":"\([^"]*\)".*/\1/')
		curl -fsS -X POST "$BASE/demo/done" -d "{\"downloader\":\"$nick\",\"version\":\"20261122.01\",\"item\":\"$item\",\"bytes\":{\"data\":$((RANDOM * 4096))}}" >/dev/null
	done
done

# An admin's session cookie, for the admin pages.
cookie=$(curl -fsS -o /dev/null -D - -X POST "$BASE/admin/login" -H "Origin: $BASE" \
	--data-urlencode username=keeper --data-urlencode 'password=lighthouse keeper' |
	sed -n 's/^[Ss]et-[Cc]ookie: \([^;]*\).*/\1/p' | head -1)
[ -n "$cookie" ] || { echo "could not sign in" >&2; exit 1; }

# The rollup folds the dones into the board within seconds.
until curl -fsS "$BASE/demo/downloader/alice" >/dev/null 2>&1; do sleep 0.5; done

run() { # name url form-factor [extra flags]
	local name=$1 url=$2 form=$3
	shift 3
	local flags=()
	[ "$form" = desktop ] && flags+=(--preset=desktop)
	npm_config_loglevel=error CHROME_PATH=$CHROME npx --yes "lighthouse@$LIGHTHOUSE_VERSION" "$url" --quiet --output=json \
		--output-path="$OUT/$name-$form.json" --chrome-flags="--headless=new --no-sandbox" "${flags[@]}" "$@" >/dev/null
	node -e '
		const r = require(process.argv[1]); const c = r.categories;
		const s = k => String(Math.round(c[k].score * 100)).padStart(4);
		console.log(process.argv[2].padEnd(28), process.argv[3].padEnd(8),
			s("performance"), s("accessibility"), s("best-practices"), s("seo"));
	' "$OUT/$name-$form.json" "$name" "$form"
}

echo "page                         form     perf a11y best  seo"
for form in mobile desktop; do
	run home "$BASE/" $form
	run leaderboard "$BASE/demo/" $form
	run warriors "$BASE/warriors/" $form
	run admin-project "$BASE/admin/projects/demo/" $form --extra-headers="{\"Cookie\":\"$cookie\"}"
	run admin-queues "$BASE/admin/projects/demo/queues" $form --extra-headers="{\"Cookie\":\"$cookie\"}"
done
