#!/usr/bin/env python3
"""Recompute every row_hash of a ledger from GET /events output alone (Python 3 stdlib only).

Reads the JSON of a GET /events page ({"events": [...], "nextCursor": n}) or a bare list of events on
stdin. Uses its own canonical JSON (json.dumps with sorted keys, compact separators, unescaped unicode),
not the server's code. Prints `verified N rows, head seq S <row_hash>` and exits 0, or prints
`BROKEN seq S <kind>: <detail>` and exits 1.
"""
import hashlib
import json
import sys


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_hash(prev, event):
    hashed = {
        "prev": prev,
        "seq": event["seq"],
        "family": event["family"],
        "kind": event["kind"],
        "entity_id": event.get("entity_id") or "",
        "actor": event.get("actor") or "",
        "at": event["at"],
        "payload": event.get("payload"),
    }
    return hashlib.sha256(canonical(hashed).encode("utf-8")).hexdigest()


def main():
    data = json.load(sys.stdin)
    events = data["events"] if isinstance(data, dict) else data
    prev = None
    expected_seq = None
    for event in events:
        seq = event["seq"]
        if expected_seq is None:
            expected_seq = seq
            # A page may start mid-chain: trust its first prev_hash only when it is not the first row.
            prev = "" if seq == 1 else (event.get("prev_hash") or "")
        if seq != expected_seq:
            print(f"BROKEN seq {expected_seq} gap: next row has seq {seq}")
            return 1
        if (event.get("prev_hash") or "") != prev:
            print(f"BROKEN seq {seq} prev_hash: {event.get('prev_hash')!r} != {prev!r}")
            return 1
        recomputed = row_hash(prev, event)
        if recomputed != event["row_hash"]:
            print(f"BROKEN seq {seq} row_hash: stored {event['row_hash']} != recomputed {recomputed}")
            return 1
        prev = event["row_hash"]
        expected_seq = seq + 1
    count = len(events)
    head = events[-1]["seq"] if events else 0
    print(f"verified {count} rows, head seq {head} {prev or ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
