"""Data files the application ships with: the sample corpus of the default project."""
