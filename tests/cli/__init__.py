"""Tests of the ``fastodbc`` command line, run as the installed command in subprocesses."""
