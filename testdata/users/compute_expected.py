#!/usr/bin/env python3
"""Works out Silver counts and gold/user_features for the user-event fixtures, independently of
the Java code (written from the issue's rules). Two scenarios:

  first:  a run over raw/*.ndjson
  second: then late/*.ndjson arrives and the job runs again (incremental)

Writes expected/<scenario>-user_features.csv and expected/<scenario>-counts.json.

    python3 testdata/users/compute_expected.py
"""
import csv
import sys
import glob
import hashlib
import json
import os
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from rules import json_object, parse_ts  # noqa: E402





def utc(ms):
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def key_text(v):
    return v if isinstance(v, str) and v.strip() else None


# An event more than 30 days ahead of its ingest is a clock error (future_event_timestamp). The
# tests ingest after this script ran, so "ahead of now" is the rule here.
NOW_MS = int(datetime.now(tz=timezone.utc).timestamp() * 1000)
MAX_AHEAD_MS = 30 * 24 * 3600 * 1000


def scenario(batches):
    counts = dict(lines=0, bronze=0, bronze_dead=0, silver=0, quarantined=0, duplicates=0)
    candidates = {}
    for batch, pattern in enumerate(batches):
        for path in sorted(glob.glob(os.path.join(HERE, pattern))):
            lines = open(path, encoding="utf-8").read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            for no, line in enumerate(lines, 1):
                counts["lines"] += 1
                obj = json_object(line)
                if obj is None:
                    counts["bronze_dead"] += 1
                    continue
                counts["bronze"] += 1
                user, etype = key_text(obj.get("user_id")), key_text(obj.get("event_type"))
                ts = parse_ts(obj.get("event_timestamp"))
                if user is None or etype is None or ts is None or ts > NOW_MS + MAX_AHEAD_MS:
                    counts["quarantined"] += 1
                    continue
                candidates.setdefault((user, ts), []).append(((batch, path, no), etype))
    events = []
    for (user, ts), copies in candidates.items():
        copies.sort()
        counts["silver"] += 1
        counts["duplicates"] += len(copies) - 1
        events.append((user, ts, copies[0][1]))
    as_of = max(utc(ts).date() for _, ts, _ in events)
    rows = []
    for user in sorted({u for u, _, _ in events}):
        mine = sorted((ts, t) for u, ts, t in events if u == user and utc(ts).date() <= as_of)
        n = {t: sum(1 for _, x in mine if x == t) for t in ("click", "purchase", "view", "add_to_cart")}
        last_ts, last_type = mine[-1]
        last_iso = utc(last_ts).strftime("%Y-%m-%dT%H:%M:%S.") + f"{last_ts % 1000:03d}Z"
        text = f"{user}|{n['click']}|{n['purchase']}|{last_type}|{last_iso}"
        rows.append([user, last_iso, last_type, n["click"], n["purchase"], n["view"],
                     n["add_to_cart"], len(mine),
                     utc(mine[0][0]).strftime("%Y-%m-%dT%H:%M:%S.") + f"{mine[0][0] % 1000:03d}Z",
                     (as_of - utc(last_ts).date()).days,
                     hashlib.sha256(text.encode("utf-8")).hexdigest(), as_of.isoformat()])
    return counts, rows


def main():
    out = os.path.join(HERE, "expected")
    os.makedirs(out, exist_ok=True)
    for name, batches in [("first", ["raw/*.ndjson"]), ("second", ["raw/*.ndjson", "late/*.ndjson"])]:
        counts, rows = scenario(batches)
        with open(os.path.join(out, f"{name}-user_features.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["user_id", "last_event_timestamp", "last_event_type", "click_count",
                        "purchase_count", "view_count", "add_to_cart_count", "event_count",
                        "first_event_timestamp", "days_since_last_event", "last_feature_hash",
                        "as_of_date"])
            w.writerows(rows)
        with open(os.path.join(out, f"{name}-counts.json"), "w") as f:
            json.dump(counts, f, indent=2, sort_keys=True)
            f.write("\n")
        print(name, counts)


if __name__ == "__main__":
    main()
