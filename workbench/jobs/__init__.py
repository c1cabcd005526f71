"""Work that runs off the window's GUI thread, one job per kind, each named alike on both
sides: `children/<job>.py` runs in a child process (Qt-free) and `runners/<job>.py` is the
window's side that starts it and turns its messages into Qt signals (training, encoding).
Jobs with no long-lived process of their own run through `runners.child_job.ChildJob`
(files, estimate, word counts) or Qt's thread pool (file checks, saving).
"""
