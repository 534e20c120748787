#!/usr/bin/env bash
# API fuzzing from the OpenAPI document (npm run test:fuzz; CI runs a shorter pass).
#
# Starts the all-in-one service on a free 127.0.0.1 port with a temporary DATA_DIR and an admin key,
# creates an account through the admin API, then runs Schemathesis (positive and negative data:
# malformed bodies, parameters and content types) against /v1/openapi.json:
#   1. every account operation with the account's key,
#   2. every admin operation with the admin key.
# Checks: not_a_server_error, response_schema_conformance, content_type_conformance,
# status_code_conformance, and error_envelope (scripts/fuzz/hooks.py: every error is the envelope).
# The service's own request log is the independent count of requests and of 5xx answers.
#
# The service runs on the adapters the environment names (MONGO_URL, KAFKA_BROKERS, with SECRETS_KEY and
# KAFKA_NAMESPACE: CI runs one pass so), on the embedded ones otherwise.
# Environment: FUZZ_MAX_EXAMPLES (test cases per operation and phase, default 200: > 10,000
# requests), FUZZ_WORKERS (default 1: Hypothesis is not thread-safe here and errors with more), FUZZ_SEED (reproduce a run). Needs python3.11 (or python3)
# with PyPI reachable the first time: Schemathesis is installed into .dev-servers/venv.
set -euo pipefail
cd "$(dirname "$0")/../.."

MAX_EXAMPLES="${FUZZ_MAX_EXAMPLES:-200}"
WORKERS="${FUZZ_WORKERS:-1}"
SCHEMATHESIS_VERSION="4.32.5"
VENV=.dev-servers/venv
# FUZZ_LABEL names a run (CI: `production` for the pass on MongoDB + Kafka): its files go to
# .dev-servers/harness/fuzz-<label>.d/ and its summary to fuzz-<label>.txt, beside the unlabelled run's.
LABEL="${FUZZ_LABEL:+-$FUZZ_LABEL}"
OUT=".dev-servers/harness/fuzz$LABEL.d"
SUMMARY=".dev-servers/harness/fuzz$LABEL.txt"
rm -rf "$OUT" "$SUMMARY"
mkdir -p "$OUT"

PYTHON="$(command -v python3.11 || command -v python3)"
if ! "$VENV/bin/schemathesis" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "== installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

WORK="$(mktemp -d)"
PORT="$(node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
BASE="http://127.0.0.1:$PORT"
ADMIN_KEY="fuzz-admin-$(node -e "console.log(require('node:crypto').randomBytes(16).toString('hex'))")"
SERVICE_LOG="$OUT/fuzz-service.log"

PORT="$PORT" HOST=127.0.0.1 DATA_DIR="$WORK/data" ADMIN_API_KEY="$ADMIN_KEY" DEMO_ACCOUNT=false AUTH_FAILURES_PER_MINUTE=1000000000 LOG_LEVEL=info \
  RATE_LIMIT_PER_MINUTE=10000000 IMAGE_UPLOAD_QUOTA=10000000 UPLOAD_SYNC_TIMEOUT_MS=300 \
  node --import tsx runtime/main.ts >"$SERVICE_LOG" 2>&1 &
SERVICE_PID=$!
cleanup() {
  kill "$SERVICE_PID" 2>/dev/null || true
  wait "$SERVICE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for _ in $(seq 1 150); do
  if node -e "fetch('$BASE/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; then break; fi
  if ! kill -0 "$SERVICE_PID" 2>/dev/null; then cat "$SERVICE_LOG"; echo "service did not start" >&2; exit 1; fi
  sleep 0.2
done
node -e "fetch('$BASE/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" || { cat "$SERVICE_LOG"; echo "service did not start" >&2; exit 1; }

ACCOUNT_KEY="$(node -e "
fetch('$BASE/v1/admin/accounts', { method: 'POST', headers: { 'x-api-key': '$ADMIN_KEY', 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Fuzzing', email: 'fuzz@example.org' }) })
  .then(async (r) => { const b = await r.json(); if (r.status !== 201) throw new Error(JSON.stringify(b)); console.log(b.api_key); })
  .catch((e) => { console.error(e); process.exit(1); })")"

SEED_ARGS=()
if [ -n "${FUZZ_SEED:-}" ]; then SEED_ARGS=(--seed "$FUZZ_SEED"); fi
STATS="$OUT/fuzz-stats.jsonl"
: >"$STATS"
CHECKS=not_a_server_error,response_schema_conformance,content_type_conformance,status_code_conformance,error_envelope

run_schemathesis() { # name key filter...
  local name="$1" key="$2"
  shift 2
  echo "== schemathesis: $name operations (max examples $MAX_EXAMPLES)"
  local status=0
  SCHEMATHESIS_HOOKS=scripts/fuzz/hooks.py FUZZ_STATS_FILE="$STATS" "$VENV/bin/schemathesis" run "$BASE/v1/openapi.json" \
    -H "x-api-key: $key" --checks "${CHECKS_FOR:-$CHECKS}" --mode all --max-examples "$MAX_EXAMPLES" --workers "$WORKERS" \
    --suppress-health-check all --no-color --report json --report-json-path "$OUT/fuzz-report-$name.json" \
    "${SEED_ARGS[@]}" "$@" >"$OUT/fuzz-schemathesis-$name.log" 2>&1 || status=$?
  sed -n '/= FAILURES =/,$p' "$OUT/fuzz-schemathesis-$name.log" | head -300
  return "$status"
}

FAILED=0
# Account operations: everything but /v1/admin/, upload-sync (below) and the decision on an image's public request.
run_schemathesis account "$ACCOUNT_KEY" --exclude-path-regex '^/v1/admin/|^/v1/images/upload-sync$|/public-requests/decision$' || FAILED=1
# upload-sync on its own: its 503 analysis_unavailable is the documented answer when the analysis does
# not finish in time (always, in a service without the image models); any other 5xx still fails.
CHECKS_FOR="${CHECKS/not_a_server_error/server_error_is_analysis_unavailable}" \
  run_schemathesis upload-sync "$ACCOUNT_KEY" --include-path-regex '^/v1/images/upload-sync$' || FAILED=1
# Admin operations: under /v1/admin, the spec's PUT /v1/accounts/{accountId}/quota, and the decision on a public request.
run_schemathesis admin "$ADMIN_KEY" --include-path-regex '^/v1/(admin/|accounts/\{accountId\}/quota$)|/public-requests/decision$' || FAILED=1

# Contention: Schemathesis sends one request at a time, so bursts of concurrent writes on one
# stream are sent here (secret rotations of one endpoint, favourites of one image with deletes,
# capability switches, key issuing); their answers are in the service log counted below (>= 500 fails).
echo "== contention bursts"
FUZZ_BASE="$BASE" FUZZ_ACCOUNT_KEY="$ACCOUNT_KEY" node scripts/fuzz/contention.mjs || FAILED=1

kill "$SERVICE_PID" 2>/dev/null || true
wait "$SERVICE_PID" 2>/dev/null || true

"$VENV/bin/python" - "$OUT" "$SUMMARY" "$FAILED" "${FUZZ_LABEL:-}" <<'PY'
import glob, json, sys
work, out, failed, label = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
cases = failures = operations = 0
for path in glob.glob(f"{work}/fuzz-report-*.json"):
    report = json.load(open(path))
    cases += report["test_cases"]["generated"]
    failures += report["test_cases"]["unique_failures"] + len(report.get("errors", []))
    operations += report["operations"]["tested"]
checked = violations = 0
for line in open(f"{work}/fuzz-stats.jsonl"):
    stats = json.loads(line)
    checked += stats["responses"]
    violations += stats["envelope_violations"]
served = server_errors = analysis_unavailable = 0
urls = {}
for line in open(f"{work}/fuzz-service.log"):
    try:
        entry = json.loads(line)
    except ValueError:
        continue
    if entry.get("msg") == "incoming request":
        urls[entry.get("reqId")] = (entry.get("req") or {}).get("url", "")
    status = (entry.get("res") or {}).get("statusCode")
    if entry.get("msg") == "request completed" and isinstance(status, int):
        served += 1
        if status == 503 and urls.get(entry.get("reqId"), "").startswith("/v1/images/upload-sync"):
            analysis_unavailable += 1
        else:
            server_errors += status >= 500
summary = (
    f"fuzzing{' (' + label + ')' if label else ''}: {served} requests served ({checked} responses checked, {cases} test cases) over {operations} operations; "
    f"{server_errors} answers >= 500 (besides {analysis_unavailable} upload-sync 503 analysis_unavailable); {violations} error envelopes invalid; {failures} unique failures"
    + (" (FAILED)" if failed else "")
)
print("== " + summary)
open(out, "w").write(summary + "\n")
sys.exit(1 if failed or server_errors or violations else 0)
PY
