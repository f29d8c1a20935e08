"""A scripted HTTP server on loopback for tests: each path answers from a queue of responses.

A response is (status, headers, body); status RESET resets the connection, STALL answers nothing for
`body` seconds, and a Content-Length header larger than the body sends a truncated body."""

import socket
import struct
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RESET = "reset"
STALL = "stall"


class ScriptedServer:
    def __init__(self):
        self.script = defaultdict(list)
        self.hits = defaultdict(int)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.hits[self.path] += 1
                queue = server.script[self.path]
                status, headers, body = queue.pop(0) if len(queue) > 1 else (queue[0] if queue else (404, {}, b""))
                if status == RESET:  # the connection is reset before any answer (RST, not FIN)
                    self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.close_connection = True
                    self.request.close()
                    return
                if status == STALL:  # answer nothing for `body` seconds (a client timeout fires first)
                    time.sleep(float(body))
                    return
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def respond(self, path, *responses):
        """Queue (status, headers, body) responses; the last one repeats."""
        self.script[path] = list(responses)
