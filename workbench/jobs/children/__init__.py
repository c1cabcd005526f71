"""The child processes' side of the jobs (Qt-free: a child never imports Qt): what each
child runs, what it sends back, and what every child does alike (`process`).
"""
