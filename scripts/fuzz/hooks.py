"""Schemathesis hooks for scripts/fuzz/run.sh: the service's own checks on top of the built-in ones.

- error_envelope: every 4xx/5xx answer is the JSON error envelope
  {statusCode, timestamp, path, message, error, code?} with statusCode equal to the HTTP status.
- The counts of responses checked and of envelope violations go to FUZZ_STATS_FILE (one JSON
  line per run) for the summary the script prints.
"""
import atexit
import json
import os
from datetime import datetime

import schemathesis

_stats = {"responses": 0, "by_class": {}, "envelope_violations": 0}


def _write_stats() -> None:
    path = os.environ.get("FUZZ_STATS_FILE")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(_stats) + "\n")


atexit.register(_write_stats)


def _envelope_problems(status: int, body: object) -> list[str]:
    if not isinstance(body, dict):
        return ["body is not a JSON object"]
    problems = []
    if body.get("statusCode") != status:
        problems.append(f"statusCode {body.get('statusCode')!r} != HTTP status {status}")
    timestamp = body.get("timestamp")
    try:
        if not isinstance(timestamp, str):
            raise ValueError
        datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        problems.append(f"timestamp {timestamp!r} is not an ISO date-time")
    path = body.get("path")
    if not isinstance(path, str) or not path.startswith("/"):
        problems.append(f"path {path!r} is not a path")
    message = body.get("message")
    if not (isinstance(message, str) or (isinstance(message, list) and all(isinstance(m, str) for m in message))):
        problems.append("message is neither a string nor an array of strings")
    if not isinstance(body.get("error"), str):
        problems.append("error is not a string")
    if "code" in body and not isinstance(body["code"], str):
        problems.append("code is not a string")
    return problems


@schemathesis.check
def error_envelope(ctx, response, case):
    """Every error answer (4xx/5xx) is the service's JSON error envelope."""
    status = response.status_code
    _stats["responses"] += 1
    key = f"{status // 100}xx"
    _stats["by_class"][key] = _stats["by_class"].get(key, 0) + 1
    if status < 400:
        return None
    content_type = ",".join(response.headers.get("content-type", []))
    if "application/json" not in content_type:
        _stats["envelope_violations"] += 1
        raise AssertionError(f"error answer {status} is not JSON (content-type {content_type!r})")
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        _stats["envelope_violations"] += 1
        raise AssertionError(f"error answer {status} is not valid JSON")
    problems = _envelope_problems(status, body)
    if problems:
        _stats["envelope_violations"] += 1
        raise AssertionError(f"error answer {status} is not the envelope: " + "; ".join(problems))
    return None


@schemathesis.check
def server_error_is_analysis_unavailable(ctx, response, case):
    """Instead of not_a_server_error on upload-sync: its only 5xx is 503 analysis_unavailable."""
    status = response.status_code
    if status < 500:
        return None
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        body = None
    if status == 503 and isinstance(body, dict) and body.get("code") == "analysis_unavailable" and isinstance(body.get("image_id"), str):
        return None
    raise AssertionError(f"server error {status} other than 503 analysis_unavailable with an image_id")
