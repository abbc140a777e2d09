"""Network faults for the tests: a TCP proxy between fastodbc and a test server whose link can
be stalled, cut, slowed or made deaf at any moment (proxy.py)."""
