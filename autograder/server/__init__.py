"""The course's submission server: students upload a notebook and get the trusted grader's feedback.

`db` (people, token hashes, submissions), `tokens`, `uploads` (streamed, capped, checked),
`service` (what the server does), `app` (the Starlette application), `grading_loop` (the thread
that hands queued submissions to the Dask cluster) and `grading` (the Dask task: grade, then feedback).
"""
