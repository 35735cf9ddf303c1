"""`brudno serve`: a local page to play Brudno, watch it search and see alpha-beta prune.

`server` is the web server, `session` a tab's game and engine process, `pruning` the textbook
searches of the position on the board; `static/` holds the page.
"""
