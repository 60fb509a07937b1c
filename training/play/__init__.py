"""Play against the bots (``chuanma play``): a person plays one seat in the browser, agents play the others.

:mod:`training.play.table` holds the game (no web dependency), :mod:`training.play.server` serves it (Starlette,
uvicorn; the ``play`` extra), :mod:`training.play.command` is the command line, ``static/play.html`` the page.
"""
