"""The instructor's side with nbgrader: release, collect, autograde (sandboxed), feedback, export.

The grading core is `autograder.judge`; nothing here is needed to grade one's own notebook.
"""
