"""The in-container side of the sandbox: the supervisor program, run inside every container.

Its modules are joined into one program and sent to a container at start (see
`verifiers.sandbox._host.program`); there they share the supervisor's ``__main__``. Standard
library only, on the image's Python, and no import from outside this package (a test checks):
`supervisor` (PID 1: requests from the host, time limits, output caps, clean-up), `zygote` (the
warm interpreter that forks every job), `roles` (the solution server and the tester), `procs`
(limits, pumping, kill-by-uid, the time limit's clock), `sessions` (a session's shell commands and
files), `link`, `handles`, `objects`, `console`, `faults` and `pyshim`
(what crosses between the tester and the program), and `wire` (frames and values, shared with the
host). Importing this package imports none of them.
"""
