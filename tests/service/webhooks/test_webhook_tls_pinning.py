"""A pinned https delivery still verifies the certificate against the URL's host name."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import pytest

from reasonforge.service.webhooks import check_callback
from reasonforge.service.webhooks.delivery import pin_target


@pytest.fixture
def tls_receiver(tmp_path):
    """An https server on loopback with a self-signed certificate for `localhost`."""
    if shutil.which("openssl") is None:
        pytest.fail(
            "the openssl command is needed to make a test certificate; install Debian's openssl"
        )
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    hosts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            hosts.append(self.headers["Host"])
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], ssl.create_default_context(cafile=str(cert)), hosts
    server.shutdown()
    server.server_close()


def test_pinned_https_keeps_sni_and_certificate_checks(tls_receiver):
    port, trust, hosts = tls_receiver
    target = check_callback(f"https://localhost:{port}/hook", allow_private=True)
    url, headers, extensions = pin_target(target)
    assert url.host == "127.0.0.1" and extensions == {"sni_hostname": "localhost"}
    with httpx.Client(verify=trust, trust_env=False) as client:
        assert (
            client.post(
                url, content=b"{}", headers=headers, extensions=extensions
            ).status_code
            == 204
        )
        # The same pinned address under another name fails verification: the pin cannot be
        # used to talk TLS to a host the certificate was not issued for.
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            client.post(
                url,
                content=b"{}",
                headers=headers,
                extensions={"sni_hostname": "evil.example"},
            )
    assert hosts == [f"localhost:{port}"]
