"""Widgets and models the tabs are built from: the token text view, the training views, the
vocabulary table model and the pipeline form with its stage editors and trainer fields. They
draw engine records; they never compute.
"""
