"""The host side of the sandbox: what runs in the process that uses it.

The Docker engine connection (`client`), the image (`image`), one locked-down container and the
wire to its supervisor (`container`), the engines of a pool and the sweeps of leftover containers
(`engines`), the pool itself (`pool`, `DockerSandbox`), one container per episode (`session`,
`Session`) and their warm pool (`session_pool`, `SessionPool`), pruning task images (`prune`), the
`Sandbox` protocol and its values
(`protocol`), the fake for unit tests (`fake`), the test code's classes a program may use
(`classes`), and the in-container program as it is shipped to a container (`program`).

It imports from `verifiers.sandbox._in_container` only the wire format (`wire`) and the wall-clock
bound of a job's and a session command's time limit (`procs.wall_bound`);
nothing there imports from here.
"""
