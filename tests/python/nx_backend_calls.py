"""A pytest plugin for NetworkX's own tests run with NETWORKX_TEST_BACKEND=apsp and fallback on
(test_networkx_own_tests.py): counts the calls of each function that reached apsp, and records
every time a function apsp implements fell back to NetworkX, with NetworkX's reason, in the JSON
file named by APSP_NX_CALLS."""

import collections
import json
import logging
import os

REACHED = collections.Counter()
FELL_BACK = []


class _Calls(logging.Handler):
    """NetworkX's backend log (networkx.utils.backends): 'Using backend ...' when a call reaches
    a backend, 'Backend ... can't run' or '... raised when calling ...' before a fallback."""

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Using backend 'apsp' for call to '"):
            REACHED[message.split("'")[3]] += 1
        elif message.startswith("Backend 'apsp' can't run `"):
            FELL_BACK.append((message.split("`")[1], "can't run"))
        elif message.startswith("Backend 'apsp' raised when calling '"):
            FELL_BACK.append((message.split("'")[3], message.split(": ", 1)[1]))


def pytest_configure(config):
    logger = logging.getLogger("networkx.utils.backends")
    logger.setLevel(logging.DEBUG)
    logger.addHandler(_Calls())


def pytest_sessionfinish(session, exitstatus):
    with open(os.environ["APSP_NX_CALLS"], "w") as out:
        json.dump({"reached": REACHED, "fell_back": FELL_BACK}, out)
