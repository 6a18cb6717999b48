"""Starts LocalStack's runtime with every listening socket on loopback.

LocalStack's gateway takes its port from GATEWAY_LISTEN but ignores the host part for IPv4 and
listens on all interfaces (localstack-core 2026.3.0, runtime/server/twisted.py). The test bed must
never be reachable from outside the machine, so before the runtime starts, any bind of this
process to the wildcard address is turned into a bind to loopback: 0.0.0.0 -> 127.0.0.1 and
:: -> ::1. `scripts/local-aws up` then checks with `ss` that nothing listens elsewhere.
"""

import socket

_bind = socket.socket.bind


def _loopback_bind(sock, address):
    if sock.family == socket.AF_INET and address[0] in ("", "0.0.0.0"):
        address = ("127.0.0.1",) + tuple(address[1:])
    elif sock.family == socket.AF_INET6 and address[0] in ("", "::"):
        address = ("::1",) + tuple(address[1:])
    return _bind(sock, address)


socket.socket.bind = _loopback_bind

from localstack.runtime.main import main  # noqa: E402 (the patch must come first)

main()
