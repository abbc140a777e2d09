"""What the interpreter running the tests is, where tests must know it."""

import sysconfig

#: A free-threaded CPython (3.13t): no GIL; `make test-ft` runs the suite on one.
FREE_THREADED_BUILD = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
