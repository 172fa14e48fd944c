"""The command lines: the student's (`python -m autograder`), the instructor's and the server's."""
