#!/usr/bin/env python3
"""A protocol bot that misbehaves on purpose, for the host's robustness tests.

    misbehaving_bot.py MODE [LOG_FILE]

Every mode plays the lowest legal option when it plays at all. With LOG_FILE, the type of every
message received is appended to it, one per line (the tests read the exchange back).

Modes: good, sleep-once (first decide answered after 3 s), hang (never answers a decide),
crash (exits with code 3 on the third decide), garbage (a non-JSON line before every reply),
illegal (answers card 999), unsolicited (a reply to request 99999 before every real reply),
no-hello (never answers hello), bad-version (claims protocol 99), spawn (starts a child that
sleeps for a minute and logs its pid as "child PID"), deaf (stops reading after hello), flood (a thousand junk lines, then the reply),
v1 (good, but answers hello with protocol 1), transcript (good, and logs every line received, whole).
Every mode but v1 and bad-version speaks protocol 2.
"""

import json
import subprocess
import sys
import time

mode = sys.argv[1]
log_path = sys.argv[2] if len(sys.argv) > 2 else None
decides = 0


def log(text):
    if log_path:
        with open(log_path, "a") as f:
            f.write(text + "\n")


def send(obj):
    sys.stdout.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    log(line.rstrip("\n") if mode == "transcript" else kind)
    if kind == "turn-result" and mode != "transcript":
        log("plays " + json.dumps(message["plays"]))
    if kind == "hello":
        if mode == "no-hello":
            continue
        if mode == "spawn":
            child = subprocess.Popen(["sleep", "60"])
            log(f"child {child.pid}")
        send({"id": message["id"], "type": "hello", "protocol": {"bad-version": 99, "v1": 1}.get(mode, 2), "name": mode})
        if mode == "deaf":
            time.sleep(600)  # never reads again: the host's writes fill the pipe
    elif kind == "decide":
        decides += 1
        move = min(message["view"]["decision"]["options"])
        if mode == "sleep-once" and decides == 1:
            time.sleep(3.0)
        if mode == "hang":
            continue
        if mode == "crash" and decides == 3:
            sys.exit(3)
        if mode == "garbage":
            send("this is not json")
        if mode == "flood":
            for _ in range(1000):
                send("junk")
        if mode == "unsolicited":
            send({"id": 99999, "move": move})
        if mode == "illegal":
            move = 999
        send({"id": message["id"], "move": move})
    elif kind == "bye":
        break
