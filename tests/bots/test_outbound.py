"""Outbound safety rules: the address policy, URL checks, pinning and bounded real HTTP calls."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator

import pytest

from bots.arena import BotCallError, BotClient
from bots.protocol import SignatureError, declared_length, verify
from core.outbound import (
    DEFAULT_ALLOWED,
    AddressPolicy,
    BotSession,
    OutboundError,
    _DeadlineSocket,
    check_url,
    parse_networks,
)

LOOPBACK_ONLY = AddressPolicy(tuple(parse_networks(DEFAULT_ALLOWED)))
NOTHING_ALLOWED = AddressPolicy(())


@pytest.mark.parametrize(
    ("address", "policy", "refused"),
    [
        ("127.0.0.1", NOTHING_ALLOWED, "loopback address"),
        ("127.8.9.10", NOTHING_ALLOWED, "loopback address"),
        ("::1", NOTHING_ALLOWED, "loopback address"),
        ("::ffff:127.0.0.1", NOTHING_ALLOWED, "loopback address"),
        ("10.1.2.3", NOTHING_ALLOWED, "private address"),
        ("172.16.0.1", NOTHING_ALLOWED, "private address"),
        ("192.168.1.1", NOTHING_ALLOWED, "private address"),
        ("fc00::1", NOTHING_ALLOWED, "private address"),
        ("169.254.1.1", NOTHING_ALLOWED, "link-local address"),
        ("fe80::1", NOTHING_ALLOWED, "link-local address"),
        ("224.0.0.1", NOTHING_ALLOWED, "multicast address"),
        ("ff02::1", NOTHING_ALLOWED, "multicast address"),
        ("0.0.0.0", NOTHING_ALLOWED, "unspecified address"),
        ("::", NOTHING_ALLOWED, "unspecified address"),
        ("240.0.0.1", NOTHING_ALLOWED, "private address"),
        ("100.64.0.1", NOTHING_ALLOWED, "non-global address"),
        ("169.254.169.254", NOTHING_ALLOWED, "cloud-metadata address"),
        ("fd00:ec2::254", NOTHING_ALLOWED, "cloud-metadata address"),
        ("93.184.216.34", NOTHING_ALLOWED, None),
        ("2606:2800:220:1:248:1893:25c8:1946", NOTHING_ALLOWED, None),
        # The default local policy allows loopback and nothing else special.
        ("127.0.0.1", LOOPBACK_ONLY, None),
        ("::1", LOOPBACK_ONLY, None),
        ("10.0.0.1", LOOPBACK_ONLY, "private address"),
        ("169.254.169.254", LOOPBACK_ONLY, "cloud-metadata address"),
        # An operator may open a private network, yet metadata stays refused unless named exactly.
        ("10.0.0.7", AddressPolicy(tuple(parse_networks("10.0.0.0/8"))), None),
        ("169.254.169.254", AddressPolicy(tuple(parse_networks("169.254.0.0/16"))), "cloud-metadata address"),
        ("169.254.169.254", AddressPolicy(tuple(parse_networks("169.254.169.254/32"))), None),
    ],
)
def test_rule_address_policy(address: str, policy: AddressPolicy, refused: str | None) -> None:
    """Rule: special-purpose addresses are refused unless the operator's networks allow them."""
    assert policy.refusal(address) == refused


EVERYTHING_ALLOWED = AddressPolicy(tuple(parse_networks("0.0.0.0/0,::/0")))


@pytest.mark.parametrize("policy", [NOTHING_ALLOWED, LOOPBACK_ONLY, EVERYTHING_ALLOWED])
@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("2002:0a00:0001::1", "address embedding the non-global IPv4 10.0.0.1"),  # 6to4 of 10.0.0.1
        ("2002:c0a8:0101::", "address embedding the non-global IPv4 192.168.1.1"),
        ("2002:a9fe:a9fe::1", "address embedding the non-global IPv4 169.254.169.254"),
        ("2002:7f00:0001::1", "address embedding the non-global IPv4 127.0.0.1"),
        ("64:ff9b::a00:1", "address embedding the non-global IPv4 10.0.0.1"),  # NAT64
        ("64:ff9b:1::c0a8:101", "address embedding the non-global IPv4 192.168.1.1"),
        ("::a00:1", "address embedding the non-global IPv4 10.0.0.1"),  # IPv4-compatible
        # Teredo: server 65.54.227.120, client obfuscated 192.168.0.1 (bits inverted).
        ("2001:0:4136:e378:8000:63bf:3f57:fffe", "address embedding the non-global IPv4 192.168.0.1"),
        ("fec0::1", "site-local address"),
        ("fec0:1:2::3", "site-local address"),
        ("feff::1", "site-local address"),
    ],
)
def test_rule_addresses_refused_under_every_policy(address: str, refused: str, policy: AddressPolicy) -> None:
    """Rule (issue 17): site-local IPv6 and IPv6 that leads to a private, loopback or link-local
    IPv4 (6to4, Teredo, NAT64, IPv4-compatible) are refused whatever networks are allowed."""
    assert policy.refusal(address) == refused


@pytest.mark.parametrize(
    "address",
    ["2002:5db8:d822::1", "64:ff9b::5db8:d822", "2001:0:4136:e378:8000:63bf:a247:27dd"],
)
def test_rule_embedded_public_ipv4_is_judged_as_the_ipv6_address(address: str) -> None:
    """Rule: an embedded public IPv4 (93.184.216.34) is no reason to refuse on its own."""
    assert "embedding" not in str(AddressPolicy(()).refusal(address))
    assert EVERYTHING_ALLOWED.refusal(address) is None


@pytest.mark.parametrize("url", ["http://127.0.0.1:0/", "https://example.org:0/bot"])
def test_rule_port_zero_is_refused(url: str) -> None:
    """Rule (issue 17): port 0 is refused under every policy (it is not 'the default port')."""
    with pytest.raises(OutboundError) as refused:
        check_url(url, EVERYTHING_ALLOWED, resolver=lambda host, port: ["93.184.216.34"])
    assert refused.value.code == "invalid_url"


@pytest.mark.parametrize(
    ("environ", "allowed", "refused"),
    [
        ({}, "127.0.0.1", "10.0.0.1"),
        ({"TRICKARENA_ALLOWED_NETWORKS": ""}, "8.8.8.8", "127.0.0.1"),
        ({"TRICKARENA_ALLOWED_NETWORKS": "10.0.0.0/8, 192.168.0.0/16"}, "192.168.3.4", "127.0.0.1"),
    ],
    ids=["unset-means-loopback", "empty-means-none", "operator-list"],
)
def test_rule_operator_setting_defaults_to_loopback(
    environ: dict[str, str], allowed: str, refused: str
) -> None:
    """Rule: TRICKARENA_ALLOWED_NETWORKS unset allows loopback only; set, it replaces the default."""
    policy = AddressPolicy.from_env(environ)
    assert policy.refusal(allowed) is None
    assert policy.refusal(refused) is not None


def test_rule_bad_operator_networks_are_reported() -> None:
    """Rule: a malformed CIDR in the operator setting is an error naming it, not silently ignored."""
    with pytest.raises(ValueError, match="nonsense"):
        AddressPolicy.from_env({"TRICKARENA_ALLOWED_NETWORKS": "10.0.0.0/8,nonsense"})


@pytest.mark.parametrize(
    ("url", "code"),
    [
        ("ftp://example.com/", "invalid_url"),
        ("file:///etc/passwd", "invalid_url"),
        ("gopher://127.0.0.1:70/", "invalid_url"),
        ("http://", "invalid_url"),
        ("http://user:pw@example.com/", "invalid_url"),
        ("http://example.com/?x=1", "invalid_url"),
        ("http://example.com:99999/", "invalid_url"),
        ("http://10.0.0.1/", "forbidden_address"),
        ("http://[::1]:8000/", "forbidden_address"),
        ("http://169.254.169.254/latest/meta-data/", "forbidden_address"),
        ("http://metadata.test/", "forbidden_address"),
        ("http://mixed.test/", "forbidden_address"),
        ("http://nowhere.test/", "connection_error"),
    ],
)
def test_rule_urls_are_checked_before_any_connection(url: str, code: str) -> None:
    """Rule: http/https only, no credentials; every resolved address must pass the policy."""
    names = {"metadata.test": ["169.254.169.254"], "mixed.test": ["93.184.216.34", "10.0.0.5"]}

    def resolver(host: str, port: int) -> list[str]:
        if host not in names:
            raise OSError("name not known")
        return names[host]

    with pytest.raises(OutboundError) as err:
        check_url(url, NOTHING_ALLOWED, resolver)
    assert err.value.code == code


def test_rule_localhost_is_refused_when_loopback_is_not_allowed() -> None:
    """Rule: a real name resolving to loopback (`localhost`) is refused like the address itself."""
    with pytest.raises(OutboundError) as err:
        check_url("http://localhost:8000/", NOTHING_ALLOWED)
    assert err.value.code == "forbidden_address"


def test_rule_resolution_is_pinned_once() -> None:
    """Rule: the host is resolved once; later calls go to that address whatever DNS says next."""
    answers = iter([["93.184.216.34"], ["10.0.0.1"]])
    target = check_url("https://bot.example:8443/v1", NOTHING_ALLOWED, lambda h, p: next(answers))
    assert target.address == "93.184.216.34"
    assert target.pinned_url("/move") == "https://93.184.216.34:8443/v1/move"
    assert target.host_header() == "bot.example:8443"


# --------------------------------------------------------------------------- real HTTP on loopback


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://169.254.169.254/")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif self.path == "/big":
            body = b"x" * 300_000
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/big-chunked":
            self.send_response(200)
            self.end_headers()  # no length: read until close
            for _ in range(40):
                self.wfile.write(b"y" * 10_000)
        elif self.path == "/slow":
            time.sleep(1.0)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")
        elif self.path == "/drip":
            self.send_response(200)
            self.send_header("Content-Length", "20")
            self.end_headers()
            for _ in range(20):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.05)
        elif self.path == "/host":
            body = json.dumps({"host": self.headers.get("Host")}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    """A plain HTTP server on loopback serving misbehaving endpoints."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("path", "timeout_s", "code"),
    [
        ("/redirect", 2.0, "http_status"),
        ("/big", 2.0, "response_too_large"),
        ("/big-chunked", 2.0, "response_too_large"),
        ("/slow", 0.3, "timeout"),
        ("/drip", 0.4, "timeout"),
        ("/error", 2.0, "http_status"),
    ],
)
def test_rule_calls_are_bounded_and_never_redirected(
    server_url: str, path: str, timeout_s: float, code: str
) -> None:
    """Rule: no redirect is followed; bodies over 256 KiB and answers over the deadline are faults."""
    with BotSession(server_url, policy=LOOPBACK_ONLY) as session:
        started = time.monotonic()
        with pytest.raises(OutboundError) as err:
            session.request("GET", path, timeout_s=timeout_s)
        assert err.value.code == code
        assert time.monotonic() - started < timeout_s + 1.0


def test_rule_pinned_call_keeps_the_host_name(server_url: str) -> None:
    """Rule: the call goes to the pinned IP but carries the URL's host name in `Host`."""
    port = server_url.rsplit(":", 1)[1]
    session = BotSession(f"http://bot.test:{port}", policy=LOOPBACK_ONLY, resolver=lambda h, p: ["127.0.0.1"])
    with session:
        assert session.get_json("/host") == {"host": f"bot.test:{port}"}


def test_rule_connection_refused_is_a_connection_error() -> None:
    """Rule: nothing listening is a `connection_error` fault, not an exception escaping."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with BotSession(f"http://127.0.0.1:{port}", policy=LOOPBACK_ONLY) as session:
        with pytest.raises(OutboundError) as err:
            session.get_json("/", timeout_s=1.0)
    assert err.value.code == "connection_error"


# --------------------------------------------------------------------------- TLS, pinned


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, str, list[str]]]:
    """An https server on loopback, self-signed for `bot.test`; (port, cert file, SNI names seen)."""
    import shutil
    import ssl
    import subprocess

    if shutil.which("openssl") is None:
        pytest.fail("needs the openssl command to make a certificate: sudo apt-get install -y openssl")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=bot.test",
            "-addext",
            "subjectAltName=DNS:bot.test",
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str] = []
    context.sni_callback = lambda sock, name, ctx: names.append(str(name))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1]), str(cert), names
    server.shutdown()
    server.server_close()


def test_rule_tls_is_pinned_and_checked_for_the_url_name(
    tls_server: tuple[int, str, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rule: https goes to the pinned IP, with SNI, Host and the certificate check on the URL's name."""
    port, cert, names = tls_server
    pinned = lambda h, p: ["127.0.0.1"]  # noqa: E731 (a one-line resolver)
    with BotSession(f"https://bot.test:{port}", policy=LOOPBACK_ONLY, resolver=pinned) as session:
        with pytest.raises(OutboundError) as err:
            session.get_json("/host", timeout_s=2.0)  # a certificate nobody trusts
        assert err.value.code == "connection_error"
    monkeypatch.setenv("SSL_CERT_FILE", cert)  # trust it from here on
    with BotSession(f"https://bot.test:{port}", policy=LOOPBACK_ONLY, resolver=pinned) as session:
        assert session.get_json("/host", timeout_s=2.0) == {"host": f"bot.test:{port}"}
    assert names[-1] == "bot.test"
    with BotSession(f"https://other.test:{port}", policy=LOOPBACK_ONLY, resolver=pinned) as session:
        with pytest.raises(OutboundError) as err:
            session.get_json("/host", timeout_s=2.0)  # the certificate is not for this name
        assert err.value.code == "connection_error"


class _AnnouncesFiveMegabytes(http.server.BaseHTTPRequestHandler):
    """A bot whose answer announces 5 MB (spelled as the path says) and then drips its body."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        self.send_response(200)
        for value in self.path.strip("/").split("/"):
            self.send_header("Content-Length", value.replace("_", " "))
        self.end_headers()
        try:
            for _ in range(60):  # 1 KB every 50 ms: read until the deadline, it would time out
                self.wfile.write(b" " * 1000)
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass  # refused: the client hung up


@pytest.fixture(scope="module")
def five_mb_bot() -> Iterator[str]:
    """A real HTTP bot on loopback announcing 5 MB answers."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AnnouncesFiveMegabytes)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


FIVE_MB_SPELLINGS = ["5242880", "_5242880", "5242880_", "+5242880", "5242880/5242880", "5242880,_5242880"]


@pytest.mark.parametrize("spelling", FIVE_MB_SPELLINGS)
def test_issue26_row7_announced_5mb_is_refused_on_the_header(five_mb_bot: str, spelling: str) -> None:
    """Issue #26 row 7: an answer announcing 5 MB in `Content-Length` (however spelled: spaces, `+`,
    a repeated header) is refused on the header with `response_too_large`, not read until the
    deadline; by the platform's pinned session and by the local driver's client alike."""
    with BotSession(five_mb_bot, policy=LOOPBACK_ONLY) as session:
        started = time.monotonic()
        with pytest.raises(OutboundError) as err:
            session.request("GET", "/" + spelling, timeout_s=2.0)
        assert (err.value.code, time.monotonic() - started < 0.5) == ("response_too_large", True)
    with BotClient(five_mb_bot) as client:
        started = time.monotonic()
        with pytest.raises(BotCallError) as call_err:
            client.request("GET", "/" + spelling, None, 2.0)
        assert (call_err.value.code, time.monotonic() - started < 0.5) == ("response_too_large", True)


@pytest.mark.parametrize(
    ("values", "length"),
    [
        ([], None),
        (["12"], 12),
        ([" 12 "], 12),
        (["+12"], 12),
        (["1, 5242880"], 5242880),
        (["12", "13"], 13),
        (["x"], None),
        (["-3"], None),
        (["١٢"], None),
    ],
)
def test_issue26_row7_declared_length_reads_every_spelling(values: list[str], length: int | None) -> None:
    """Issue #26 row 7: `declared_length` takes the largest number any `Content-Length` announces."""
    assert declared_length(values) == length


class _EchoSigned(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: several requests on one connection

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self, body: bytes) -> None:
        try:
            verify(_ECHO_SECRET, body, self.headers)
            out = json.dumps({"body": body.decode(), "type": self.headers.get("Content-Type")}).encode()
            self.send_response(200)
        except SignatureError as exc:
            out = exc.code.encode()
            self.send_response(401)
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def do_GET(self) -> None:  # noqa: N802 (http.server naming)
        self._answer(b"")

    def do_POST(self) -> None:  # noqa: N802
        self._answer(self.rfile.read(int(self.headers.get("Content-Length", "0"))))


_ECHO_SECRET = "echo-secret"


def test_signed_requests_go_out_whole_in_one_write(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request's head and body leave in one write; every call is signed (one signer per session)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _EchoSigned)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    writes: list[bytes] = []
    sendall = _DeadlineSocket.sendall

    def counted(self: _DeadlineSocket, data: bytes) -> None:
        writes.append(bytes(data))
        sendall(self, data)

    monkeypatch.setattr(_DeadlineSocket, "sendall", counted)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with BotSession(url, secret=_ECHO_SECRET, policy=LOOPBACK_ONLY) as session:
            for n in range(3):
                payload = {"n": n, "view": "x" * (100 * n)}
                answer = session.post_json("/move", payload)
                assert json.loads(answer["body"]) == payload
                assert answer["type"] == "application/json"
                assert len(writes) == n + 1
                assert writes[-1].startswith(b"POST /move HTTP/1.1\r\n")
                assert writes[-1].endswith(b"\r\n\r\n" + json.dumps(payload, separators=(",", ":")).encode())
            assert session.get_json("/") == {"body": "", "type": None}
            assert len(writes) == 4
        with BotSession(url, secret="not-the-secret", policy=LOOPBACK_ONLY) as session:
            with pytest.raises(OutboundError) as err:
                session.post_json("/move", {"n": 1})
            assert err.value.status == 401
            assert err.value.body == b"bad_signature"
    finally:
        server.shutdown()
        server.server_close()
