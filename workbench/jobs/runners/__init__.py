"""The window's side of the jobs (Qt): start a child or a pooled thread, read its messages on
a timer, cancel it, and emit what it sent as signals carrying engine records.
"""
