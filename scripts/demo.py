"""Placeholder: the real demo is being written separately and will replace this file."""

print("TODO: fastodbc demo (scripts/demo.py is a placeholder)")
