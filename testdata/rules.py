"""The record rules shared by the expected-output scripts in testdata/, written from the issues'
text (not from the Java sources): the timestamp rule and strict JSON objects."""
import json
import re
from datetime import datetime

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$")
MAX_MS = 253402300800000  # 10000-01-01T00:00:00Z


class DuplicateKey(Exception):
    pass


def _no_dup_keys(pairs):
    if len({k for k, _ in pairs}) != len(pairs):
        raise DuplicateKey()
    return dict(pairs)


def json_object(line):
    """The JSON object on the line, or None (blank, not JSON, duplicate keys, not an object)."""
    if not line.strip():
        return None
    try:
        obj = json.loads(line, object_pairs_hook=_no_dup_keys)
    except (ValueError, DuplicateKey):
        return None
    return obj if isinstance(obj, dict) else None


def parse_ts(v):
    """Epoch millis of an ISO-8601 instant with Z or an offset, or of a JSON integer; else None."""
    if isinstance(v, int) and not isinstance(v, bool):
        ms = v
    elif isinstance(v, str) and ISO.match(v):
        frac = re.search(r"\.(\d+)", v)
        base = re.sub(r"\.\d+", "", v).replace("Z", "+00:00")
        if len(base) == len("2026-11-29T10:15+00:00"):
            base = base[:16] + ":00" + base[16:]
        ms = int(datetime.fromisoformat(base).timestamp()) * 1000
        ms += int(frac.group(1)[:3].ljust(3, "0")) if frac else 0
    else:
        return None
    return ms if 0 <= ms < MAX_MS else None
