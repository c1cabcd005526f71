"""What the command line, the child processes and the window share, Qt-free: presets, the
pipeline components a form offers, settings, formatting, what the window says about a training
and about the corpus files, the shipped resources, the word-count cache policy, the packed
columns that cross from a child to the window, a stored history, and a step-by-step training
session.
"""
