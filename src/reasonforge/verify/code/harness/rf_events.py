"""Event channel from a harness child to the harness parent (one JSON object per line on RF_EVENT_FD)."""

import json
import os

_FD = int(os.environ.pop("RF_EVENT_FD", "-1"))


def emit(obj):
    if _FD < 0:
        return
    data = (json.dumps(obj, default=repr) + "\n").encode("utf-8")
    while data:
        try:
            n = os.write(_FD, data)
        except OSError:
            return
        data = data[n:]
