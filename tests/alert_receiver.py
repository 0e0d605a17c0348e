"""Local fakes of alert channels, real servers on 127.0.0.1 in a thread: a generic webhook
recording what apprise's `json://` and `form://` post, and an SMTP server for `mailto://`."""

from __future__ import annotations

import email
import email.message
import json
import socketserver
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


@dataclass(frozen=True)
class Received:
    path: str
    content_type: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)  # lowercased names

    @property
    def json(self) -> dict:
        return json.loads(self.body)

    @property
    def form(self) -> dict[str, str]:
        return {k: v[0] for k, v in parse_qs(self.body.decode()).items()}


class AlertReceiver:
    """Records every POST; answers `status` (set `statuses` for a sequence of answers),
    after `delay` seconds, with a `Location` header when `location` is set (a redirect)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.status = 200
        self.location = ""
        self.statuses: list[int] = []
        self.delay = 0.0
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if receiver.delay:
                    time.sleep(receiver.delay)
                with receiver._lock:
                    receiver.received.append(
                        Received(
                            self.path,
                            self.headers.get("Content-Type", ""),
                            body,
                            {k.lower(): v for k, v in self.headers.items()},
                        )
                    )
                    status = receiver.statuses.pop(0) if receiver.statuses else receiver.status
                self.send_response(status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, scheme: str = "json", path: str = "/hooks/alerts-secret-path") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def titles(self) -> list[str]:
        return [r.json["title"] for r in self.received]

    def __enter__(self) -> AlertReceiver:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


class FakeSMTP:
    """Just enough SMTP on 127.0.0.1 for apprise's `mailto://` (no TLS, no login): keeps
    each message's DATA as an email.message.Message."""

    def __init__(self) -> None:
        self.messages: list[email.message.Message] = []
        smtp = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, text: str) -> None:
                self.wfile.write(f"{text}\r\n".encode())

            def handle(self) -> None:
                self.reply("220 fake ESMTP")
                lines: list[bytes] | None = None  # the message, while in DATA
                for line in self.rfile:
                    if lines is not None:
                        if line.rstrip(b"\r\n") == b".":
                            smtp.messages.append(email.message_from_bytes(b"".join(lines)))
                            lines = None
                            self.reply("250 queued")
                        else:
                            lines.append(line)
                        continue
                    command = line[:4].upper()
                    if command == b"DATA":
                        lines = []
                        self.reply("354 end with .")
                    elif command == b"QUIT":
                        self.reply("221 bye")
                        return
                    else:  # EHLO, MAIL FROM, RCPT TO, RSET, NOOP
                        self.reply("250 ok")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def url(self, to: str = "ops@agro-nord.ro") -> str:
        port = self.server.server_address[1]
        return f"mailto://127.0.0.1:{port}?from=alerte@cerniq.ro&to={to}&mode=insecure"

    def __enter__(self) -> FakeSMTP:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
