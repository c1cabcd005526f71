"""The PySide6 window: the application and its appearance, the main window and the project
document every change goes through (with its undo command and the active tokenizer's view),
the Project panel and its corpus table, the questions it asks (`prompts`), the tabs (`tabs/`)
and the widgets they are built from (`views/`), and the screenshots of every tab.
"""
