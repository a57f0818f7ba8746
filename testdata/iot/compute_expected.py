#!/usr/bin/env python3
"""Works out the Gold tables for events.ndjson independently of the Java code.

A second, plain implementation of the record rules written from the issue text (not from the
Java sources): run it after changing events.ndjson or devices.csv, and commit what it writes to
expected/. The end-to-end replay test compares the pipeline's Gold with these files.

    python3 testdata/iot/compute_expected.py
"""
import csv
import sys
import json
import math
import os
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from rules import json_object, parse_ts  # noqa: E402
EVENTS = os.path.join(HERE, "events.ndjson")
DEVICES = os.path.join(HERE, "..", "devices.csv")
OUT = os.path.join(HERE, "expected")





def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))



def load_devices():
    with open(DEVICES, newline="") as f:
        return {row["device_id"]: row for row in csv.DictReader(f)}


def bronze(line):
    """('reading'|'heartbeat', obj, ts_ms) or None for a dead letter."""
    obj = json_object(line)
    if obj is None:
        return None
    dev = obj.get("device_id")
    if not isinstance(dev, str) or not dev.strip():
        return None
    ts = parse_ts(obj.get("ts"))
    if ts is None:
        return None
    if "sensor_type" in obj:
        return "reading", obj, ts
    if "battery_pct" in obj or "rssi_dbm" in obj or "status" in obj:
        return "heartbeat", obj, ts
    return None


RANGES = {"temperature": (-40, 125), "humidity": (0, 100), "pressure": (300, 1100)}


def silver_reading(obj, devices):
    t, v, u = obj.get("sensor_type"), obj.get("value"), obj.get("unit")
    if not isinstance(t, str) or not is_num(v) or not isinstance(u, str):
        return None
    if "seq" in obj and obj["seq"] is not None and not is_int(obj["seq"]):
        return None
    if t == "temperature":
        if u == "F":
            v = (v - 32.0) * 5.0 / 9.0
        elif u != "C":
            return None
    elif t == "humidity":
        if u != "%":
            return None
    elif t == "pressure":
        if u != "hPa":
            return None
    else:
        return None
    lo, hi = RANGES[t]
    if not lo <= v <= hi:
        return None
    if obj["device_id"] not in devices:
        return None
    return t, v


def silver_heartbeat(obj, devices):
    b, r, s = obj.get("battery_pct"), obj.get("rssi_dbm"), obj.get("status")
    if not is_num(b) or not is_int(r) or not isinstance(s, str):
        return None
    if not 0 <= b <= 100 or s not in ("ok", "degraded", "error"):
        return None
    if obj["device_id"] not in devices:
        return None
    return b, r, s


def fmt(x):
    return "" if x is None else repr(float(x))


def main():
    devices = load_devices()
    lines = open(EVENTS, encoding="utf-8").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    counts = dict(lines=len(lines), bronze=0, bronze_dead=0, silver=0, quarantined=0)
    readings, heartbeats = {}, {}
    for line in lines:
        b = bronze(line)
        if b is None:
            counts["bronze_dead"] += 1
            continue
        counts["bronze"] += 1
        kind, obj, ts = b
        dev = obj["device_id"]
        if kind == "reading":
            s = silver_reading(obj, devices)
            if s is None:
                counts["quarantined"] += 1
                continue
            counts["silver"] += 1
            # A reading's identity: (device, sensor type, instant, seq) when it has a seq (a
            # resend repeats it), (device, sensor type, instant) when it has none.
            seq = obj.get("seq")
            key = (dev, s[0], ts) if seq is None else (dev, s[0], ts, seq)
            cand = (s[1], line)
            readings[key] = min(readings.get(key, cand), cand)
        else:
            s = silver_heartbeat(obj, devices)
            if s is None:
                counts["quarantined"] += 1
                continue
            counts["silver"] += 1
            key = (dev, ts)
            # Of two copies, the one with the smaller (battery, RSSI, status) counts.
            heartbeats[key] = min(heartbeats.get(key, s), s)

    def bucket(ts):
        return ts - ts % 60000

    def empty():
        return dict(devices=set(), t=[], h=[], p=[], n=0, hb=0, bat=[], rssi=[], last=None)

    per_dev, per_site = {}, {}
    for (dev, t, ts, *_), (v, _) in sorted(readings.items()):
        site = devices[dev]["site"]
        for agg in (per_dev.setdefault((dev, bucket(ts)), empty()),
                    per_site.setdefault((site, bucket(ts)), empty())):
            agg["devices"].add(dev)
            agg["n"] += 1
            agg[t[0]].append(v)
    for (dev, ts), (b, r, s) in sorted(heartbeats.items()):
        site = devices[dev]["site"]
        for agg in (per_dev.setdefault((dev, bucket(ts)), empty()),
                    per_site.setdefault((site, bucket(ts)), empty())):
            agg["devices"].add(dev)
            agg["hb"] += 1
            agg["bat"].append(b)
            agg["rssi"].append(r)
            if agg["last"] is None or (ts, dev) >= agg["last"][0]:
                agg["last"] = ((ts, dev), s)

    def avg(xs):
        return sum(xs) / len(xs) if xs else None

    def iso(ms):
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "device_minute.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["device_id", "site", "zone", "window_start", "window_end", "reading_count",
                    "temperature_avg", "temperature_min", "temperature_max", "humidity_avg",
                    "pressure_avg", "heartbeat_count", "battery_pct_min", "rssi_dbm_avg",
                    "last_status"])
        for (dev, ws), a in sorted(per_dev.items()):
            w.writerow([dev, devices[dev]["site"], devices[dev]["zone"], iso(ws), iso(ws + 60000),
                        a["n"], fmt(avg(a["t"])), fmt(min(a["t"], default=None)),
                        fmt(max(a["t"], default=None)), fmt(avg(a["h"])), fmt(avg(a["p"])),
                        a["hb"], fmt(min(a["bat"], default=None)), fmt(avg(a["rssi"])),
                        a["last"][1] if a["last"] else ""])
    with open(os.path.join(OUT, "site_minute.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["site", "window_start", "window_end", "device_count", "reading_count",
                    "temperature_avg", "humidity_avg", "pressure_avg", "heartbeat_count",
                    "battery_pct_min"])
        for (site, ws), a in sorted(per_site.items()):
            w.writerow([site, iso(ws), iso(ws + 60000), len(a["devices"]), a["n"],
                        fmt(avg(a["t"])), fmt(avg(a["h"])), fmt(avg(a["p"])), a["hb"],
                        fmt(min(a["bat"], default=None))])
    with open(os.path.join(OUT, "counts.json"), "w") as f:
        json.dump(counts, f, indent=2, sort_keys=True)
        f.write("\n")
    print(counts)


if __name__ == "__main__":
    main()
