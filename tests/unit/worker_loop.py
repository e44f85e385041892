"""placement-api's worker in this process: its listener, channels and
tasks serving a WSGI application on a loopback socket, with the
worker's adjustments that the tests depend on."""

import contextlib
import socket
import threading

from waitress import adjustments
from waitress import task
from waitress import wasyncore

from placement.wsgi import server


@contextlib.contextmanager
def serving(application, limits):
    """(address, the listener) of the worker's listener serving
    ``application`` within ``limits``, its loop in a thread checking
    deadlines as often as the worker's."""
    sock = socket.create_server(('127.0.0.1', 0))
    adj = adjustments.Adjustments(
        sockets=[sock], threads=2, asyncore_use_poll=True,
        cleanup_interval=server.CHECK_INTERVAL,
        max_request_body_size=limits.max_body_bytes + 1)
    dispatcher = task.ThreadedTaskDispatcher()
    dispatcher.set_thread_count(2)
    socket_map = server.Dispatchers()
    listener = server._Listener(application, socket_map, sock, dispatcher,
                                adj, limits)
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            socket_map.poll(0.05)

    looping = threading.Thread(target=loop)
    looping.start()
    try:
        yield sock.getsockname(), listener
    finally:
        stop.set()
        looping.join()
        dispatcher.shutdown(timeout=1)
        wasyncore.close_all(socket_map)
        socket_map.close()
