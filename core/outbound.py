"""Safe outbound HTTP to user-supplied bot URLs (shared by the API's bot submission and the harness).

A bot URL is user input, so a call to it must not become a way into the platform's own network
(server-side request forgery). The rules:

- only ``http`` and ``https`` URLs without credentials;
- the host is resolved once and every connection is pinned to that address (the URL is rewritten
  to the IP; the ``Host`` header and, for https, SNI and certificate checks keep the name), so a
  DNS answer that changes between check and use (DNS rebinding) can't redirect the call;
- loopback, private, link-local, multicast, reserved, unspecified and cloud-metadata addresses
  are refused unless ``TRICKARENA_ALLOWED_NETWORKS`` (a comma-separated CIDR list) allows them;
  site-local IPv6 (``fec0::/10``), IPv6 addresses that lead to a non-global IPv4 host (6to4,
  Teredo, NAT64, IPv4-compatible) and port 0 are refused under every policy.
  Unset, it allows loopback only (a local run: bots on this machine); set it to an empty
  string to allow no special network at all. Cloud-metadata addresses are refused even inside
  an allowed network unless the list names them exactly;
- redirects are never followed; responses are bounded in size and in total time (every send and
  read of a call shares one deadline, so a bot dripping bytes slowly is cut off).
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import os
import re
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import orjson

from bots.protocol import FaultCode, Signer, declared_length

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_NETWORKS_ENV = "TRICKARENA_ALLOWED_NETWORKS"
DEFAULT_ALLOWED = "127.0.0.0/8,::1/128"
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
MAX_RESPONSE_BYTES = 256 * 1024

# What a bot URL looks like (openapi.yaml states it as `url`'s pattern, and the API refuses any other
# string with 422 `invalid_url` before `check_url`): http or https (any case), a host name or a
# bracketed IPv6 address without user info, an optional port 1-65535 without leading zeros, an
# optional path; no query, no fragment, no white space.
BOT_URL_PATTERN = (
    r"^[Hh][Tt][Tt][Pp][Ss]?://([^/?#@:\[\]\s]+|\[[0-9A-Fa-f:.]+\])"
    r"(:(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?"
    r"(/[^?#\s]*)?$"
)
DEFAULT_TIMEOUT_S = 5.0
USER_AGENT = "TrickArena/1 (+bot protocol)"


# How much of a refused answer's body an OutboundError keeps (shown to the bot's owner).
ERROR_BODY_BYTES = 512


class OutboundError(Exception):
    """An outbound call was refused or failed; `code` is machine-readable (a FaultCode or a URL error)."""

    def __init__(
        self, code: str, message: str, status: int | None = None, body: bytes = b"", reached: bool = True
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        # False when the call never got to the bot: refused by our own policy, not resolved, or no
        # connection made (refused, unreachable, timed out while connecting). Such a failure may be
        # the caller's network rather than the bot (harness.health tells them apart).
        self.reached = reached
        # An answer that arrived but is refused (non-200, not JSON): its status and its first bytes.
        self.status = status
        self.body = body[:ERROR_BODY_BYTES]


# --------------------------------------------------------------------------- address policy


def parse_networks(text: str) -> list[IPNetwork]:
    """Parse a comma/space-separated CIDR list; raise ValueError naming the bad entry."""
    networks: list[IPNetwork] = []
    for part in text.replace(",", " ").split():
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError as exc:
            raise ValueError(f"{ALLOWED_NETWORKS_ENV}: bad network {part!r}: {exc}") from None
    return networks


@dataclass(frozen=True)
class AddressPolicy:
    """Which resolved addresses an outbound call may connect to."""

    allowed: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> AddressPolicy:
        """The operator's policy: `TRICKARENA_ALLOWED_NETWORKS`, loopback only when unset."""
        env = os.environ if environ is None else environ
        return cls(tuple(parse_networks(env.get(ALLOWED_NETWORKS_ENV, DEFAULT_ALLOWED))))

    def refusal(self, address: str | IPAddress) -> str | None:
        """Why `address` is refused (a short reason), or None when a call may go there."""
        ip = ipaddress.ip_address(address) if isinstance(address, str) else address
        # An IPv4-mapped IPv6 address reaches the IPv4 host: judge that host.
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        always = always_refused(ip)
        if always is not None:
            return always
        if ip in METADATA_ADDRESSES:
            exact = any(net.num_addresses == 1 and ip in net for net in self.allowed)
            return None if exact else "cloud-metadata address"
        if any(ip.version == net.version and ip in net for net in self.allowed):
            return None
        for reason, flagged in (
            ("unspecified address", ip.is_unspecified),
            ("loopback address", ip.is_loopback),
            ("link-local address", ip.is_link_local),
            ("multicast address", ip.is_multicast),
            ("private address", ip.is_private),
            ("reserved address", ip.is_reserved),
        ):
            if flagged:
                return reason
        if not ip.is_global:
            return "non-global address"
        return None


# IPv6 prefixes whose addresses carry an IPv4 address in their low 32 bits (a translator or a
# relay forwards to it): NAT64's well-known and local-use prefixes, and the deprecated
# IPv4-compatible addresses.
EMBEDDED_V4_PREFIXES: tuple[ipaddress.IPv6Network, ...] = (
    ipaddress.IPv6Network("64:ff9b::/96"),
    ipaddress.IPv6Network("64:ff9b:1::/48"),
    ipaddress.IPv6Network("::/96"),
)
SITE_LOCAL = ipaddress.IPv6Network("fec0::/10")


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to: 6to4 (2002::/16), Teredo (2001::/32: its
    server and its client), NAT64 and IPv4-compatible prefixes; [] for anything else."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found: list[ipaddress.IPv4Address] = []
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if (
        any(ip in net for net in EMBEDDED_V4_PREFIXES)
        and not ip.is_unspecified
        and ip != ipaddress.IPv6Address("::1")
    ):
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def always_refused(ip: IPAddress) -> str | None:
    """Addresses refused under every policy, whatever networks the operator allows: site-local
    IPv6, and IPv6 addresses that lead to a non-global IPv4 host (6to4, Teredo, NAT64, ...)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip in SITE_LOCAL:
        return "site-local address"
    for inner in embedded_ipv4(ip):
        if not inner.is_global:
            return f"address embedding the non-global IPv4 {inner}"
    return None


Resolver = Callable[[str, int], list[str]]


RESOLVE_TIMEOUT_S = 2.0
# A few threads so that a slow DNS answer can be abandoned: getaddrinfo itself has no timeout.
_RESOLVER_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="resolve")


def _getaddrinfo(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for info in infos:
        addr = str(info[4][0]).split("%", 1)[0]  # drop an IPv6 zone id
        if addr not in seen:
            seen.append(addr)
    return seen


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to (getaddrinfo, bounded by RESOLVE_TIMEOUT_S), in order."""
    try:
        return _RESOLVER_POOL.submit(_getaddrinfo, host, port).result(timeout=RESOLVE_TIMEOUT_S)
    except FutureTimeout:
        raise OSError(f"no DNS answer within {RESOLVE_TIMEOUT_S}s") from None


DEFAULT_PORTS = {"http": 80, "https": 443}
# RFC 3986 §2.3: percent-encodings of these mean the character itself (§6.2.2.2).
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def canonical_address(host: str, port: int, resolver: Resolver = system_resolver) -> str:
    """The one address a host names, as the URL's identity: an IP literal in any spelling (`127.1`,
    `2130706433`, `0x7f000001`, `0177.0.0.1`, `[::ffff:127.0.0.1]`) or a name resolved the way a
    call resolves it; an IPv4-mapped IPv6 address is its IPv4 address; of several, the least
    (IPv4 before IPv6). A host that does not resolve stays its lower-cased name."""
    try:
        found = [str(ipaddress.ip_address(host))]
    except ValueError:
        try:
            found = resolver(host, port)
        except (OSError, UnicodeError):
            found = []
    addresses: list[IPAddress] = []
    for text in found:
        try:
            ip = ipaddress.ip_address(text)
        except ValueError:
            continue
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        addresses.append(ip)
    if not addresses:
        return host.lower()
    best = min(addresses, key=lambda ip: (ip.version, int(ip)))
    return f"[{best}]" if best.version == 6 else str(best)


def normalise_path(path: str) -> str:
    """A URL path in the form two spellings of it share (RFC 3986 §6.2.2): percent-encoded
    unreserved characters decoded, other percent-encodings in upper case, `.` and `..` segments
    removed (§5.2.4), no trailing slash."""
    pieces = path.split("%")
    text = pieces[0]
    for piece in pieces[1:]:
        code = piece[:2]
        if len(code) == 2 and all(c in "0123456789abcdefABCDEF" for c in code):
            char = chr(int(code, 16))
            text += (char if char in _UNRESERVED else "%" + code.upper()) + piece[2:]
        else:
            text += "%" + piece
    kept: list[str] = []
    for segment in text.split("/")[1:] if text.startswith("/") else text.split("/"):
        if segment == ".":
            continue
        if segment == "..":
            if kept:
                kept.pop()
            continue
        kept.append(segment)
    return ("/" + "/".join(kept)).rstrip("/") if kept else ""


def canonical_url(url: str, resolver: Resolver = system_resolver) -> str:
    """The identity of the bot a URL reaches: scheme, the canonical address (`canonical_address`),
    the port (always written) and the normalised path; no user info, query or fragment (bot URLs
    may carry none). Every spelling of one address and path gives one string. A URL that does not
    parse is returned as it is (`check_url` refuses it)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url
    scheme = parts.scheme.lower()
    port = port or DEFAULT_PORTS.get(scheme, 0)
    address = canonical_address(parts.hostname or "", port, resolver)
    return f"{scheme}://{address}:{port}{normalise_path(parts.path)}"


@dataclass(frozen=True)
class Target:
    """A checked bot URL, pinned to one resolved address."""

    url: str  # the original base URL (no trailing slash)
    scheme: str
    host: str  # the name from the URL (for Host / SNI)
    port: int
    base_path: str
    address: str  # the pinned IP

    def pinned_url(self, path: str) -> str:
        """The URL of `path` with the host replaced by the pinned address."""
        ip = ipaddress.ip_address(self.address)
        netloc = f"[{ip}]" if ip.version == 6 else str(ip)
        netloc += f":{self.port}"
        full_path = self.base_path.rstrip("/") + "/" + path.lstrip("/")
        return urlunsplit((self.scheme, netloc, full_path, "", ""))

    def host_header(self) -> str:
        """The `Host` header the bot expects (the name and, if not default, the port)."""
        default = 443 if self.scheme == "https" else 80
        name = f"[{self.host}]" if ":" in self.host else self.host
        return name if self.port == default else f"{name}:{self.port}"


def check_url(url: str, policy: AddressPolicy | None = None, resolver: Resolver = system_resolver) -> Target:
    """Validate `url`, resolve it once and pin it; raise OutboundError (invalid_url, forbidden_address...)."""
    policy = policy or AddressPolicy.from_env()
    if not isinstance(url, str) or len(url) > 2048:
        raise OutboundError("invalid_url", "the URL must be a string of at most 2048 characters")
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise OutboundError("invalid_url", f"unparsable URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise OutboundError("invalid_url", "only http and https URLs are allowed")
    if not parts.hostname:
        raise OutboundError("invalid_url", "the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise OutboundError("invalid_url", "credentials in the URL are not allowed")
    if parts.query or parts.fragment:
        raise OutboundError("invalid_url", "the bot URL may not carry a query or fragment")
    if port == 0:
        raise OutboundError("invalid_url", "port 0 is not a port a bot can listen on")
    if not re.fullmatch(BOT_URL_PATTERN, url):
        raise OutboundError(
            "invalid_url", "not a bot URL: http(s)://host[:port][/path], no white space, no leading zeros"
        )
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        try:
            addresses = resolver(host, port)
        except (OSError, UnicodeError) as exc:
            raise OutboundError(
                FaultCode.CONNECTION_ERROR, f"cannot resolve {host!r}: {exc}", reached=False
            ) from None
    if not addresses:
        raise OutboundError(FaultCode.CONNECTION_ERROR, f"{host!r} resolves to no address", reached=False)
    # Every answer must pass: otherwise a name with one public and one private record
    # would be accepted at submission and might reach the private one later.
    for address in addresses:
        reason = policy.refusal(address)
        if reason is not None:
            raise OutboundError(
                FaultCode.FORBIDDEN_ADDRESS,
                f"{host!r} resolves to {address}, a refused {reason}",
                reached=False,
            )
    base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    return Target(base, parts.scheme, host, port, parts.path, addresses[0])


# --------------------------------------------------------------------------- pinned session


class _DeadlineReader(io.RawIOBase):
    """Reads a socket with the session's request deadline as the bound of every `recv`.

    A socket timeout alone bounds each `recv`, not the whole answer: a bot dripping its status
    line, headers or body a byte at a time could hold a call far past its deadline.
    """

    def __init__(
        self, sock: socket.socket, deadline: Callable[[], float], on_close: Callable[[], None]
    ) -> None:
        super().__init__()
        self._sock = sock
        self._deadline = deadline
        self._on_close = on_close

    def close(self) -> None:
        """Release the socket (it closes once the connection has let go of it too)."""
        if not self.closed:
            super().close()
            self._on_close()

    def readable(self) -> bool:
        """Always: this is a reader."""
        return True

    def readinto(self, buffer: Any) -> int:
        """One `recv_into` bounded by what is left of the deadline."""
        remaining = self._deadline() - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed while reading the answer")
        self._sock.settimeout(remaining)
        return self._sock.recv_into(buffer)


class _DeadlineSocket:
    """The few socket methods http.client uses, with every send and read bounded by the deadline."""

    def __init__(self, sock: socket.socket, deadline: Callable[[], float]) -> None:
        self.sock = sock
        self._deadline = deadline
        # Like socket.makefile's reference count: http.client closes the connection while the
        # response of a `Connection: close` answer still reads from it.
        self._readers = 0
        self._closed = False

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        """A buffered reader for one response (closing it leaves the socket open for keep-alive)."""
        self._readers += 1
        return io.BufferedReader(_DeadlineReader(self.sock, self._deadline, self._reader_closed))

    def _reader_closed(self) -> None:
        self._readers -= 1
        if self._closed and self._readers == 0:
            self.sock.close()

    def sendall(self, data: bytes) -> None:
        """Send the request, bounded by what is left of the deadline."""
        remaining = self._deadline() - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed while sending the request")
        self.sock.settimeout(remaining)
        self.sock.sendall(data)

    def close(self) -> None:
        """Close the socket once no response reads from it any more."""
        self._closed = True
        if self._readers == 0:
            self.sock.close()


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to the pinned address whose socket honours the session's deadline."""

    def __init__(self, target: Target, deadline: Callable[[], float]) -> None:
        super().__init__(target.address, target.port)
        self._deadline = deadline
        # Whether the current call has a connection to the bot (kept alive, or made by it); set
        # before the call, and by `connect` once the connection is made.
        self.made = False
        # Set before a request with a body: http.client sends the request's head and then its
        # body (`send`, twice); the head is held and goes out with the body in one write.
        self.body_follows = False
        self._head: bytes | None = None

    def send(self, data: Any) -> None:
        """http.client's `send`, with a request's head held back until its body comes (one write
        and one system call per request instead of two)."""
        head, self._head = self._head, None
        if head is not None:
            data = head + data
        elif self.body_follows and isinstance(data, bytes):
            self.body_follows = False
            self._head = data
            return
        super().send(data)

    def close(self) -> None:
        """Close the connection and drop anything held back."""
        self._head, self.body_follows = None, False
        super().close()

    def connect(self) -> None:
        """Connect to the pinned address within the deadline (no proxy, no new DNS lookup)."""
        self.sock = _DeadlineSocket(self._raw_connection(), self._deadline)
        self.made = True

    def _raw_connection(self) -> socket.socket:
        remaining = self._deadline() - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("deadline passed before connecting")
        sock = socket.create_connection((self.host, self.port), remaining)
        # Small requests and answers: don't let Nagle hold the body back for the peer's ACK.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    """The same over TLS: SNI and certificate checks use the URL's host name, not the pinned IP."""

    def __init__(self, target: Target, deadline: Callable[[], float]) -> None:
        super().__init__(target, deadline)
        self._server_hostname = target.host
        self._context = ssl.create_default_context()  # verifies the chain and the host name

    def connect(self) -> None:
        """Connect to the pinned address, then do the TLS handshake for the original name."""
        raw = self._raw_connection()
        try:
            raw.settimeout(max(0.001, self._deadline() - time.monotonic()))
            tls = self._context.wrap_socket(raw, server_hostname=self._server_hostname)
        except BaseException:
            raw.close()
            raise
        self.sock = _DeadlineSocket(tls, self._deadline)
        self.made = True


@dataclass
class Response:
    """A bounded, fully-read HTTP response."""

    status: int
    body: bytes
    elapsed_s: float
    headers: dict[str, str] = field(default_factory=dict)

    def json(self) -> Any:
        """The body parsed as JSON; raise OutboundError(malformed_body) otherwise."""
        try:
            return orjson.loads(self.body)
        except (orjson.JSONDecodeError, ValueError, UnicodeDecodeError) as exc:
            raise OutboundError(
                FaultCode.MALFORMED_BODY, f"body is not JSON: {exc}", self.status, self.body
            ) from None


class BotSession:
    """Keep-alive, pinned, signed HTTP client for one bot URL (one connection, reused call after call).

    Built on `http.client` rather than requests: a bot call is the harness's hot path, and
    requests/urllib3 cost about 1 ms of CPU per call where this costs a fraction of that.
    No proxies or `.netrc` are consulted, redirects are never followed.
    """

    def __init__(
        self,
        url: str,
        secret: str | None = None,
        policy: AddressPolicy | None = None,
        resolver: Resolver = system_resolver,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        self.target = check_url(url, policy, resolver)
        self.secret = secret
        self.max_bytes = max_bytes
        self._deadline_at = 0.0
        connection_class = _PinnedHTTPSConnection if self.target.scheme == "https" else _PinnedHTTPConnection
        self._conn = connection_class(self.target, lambda: self._deadline_at)
        # The headers every call sends (a body's adds its type), and the signer: built once per
        # session, not per call.
        self._headers = {
            "Host": self.target.host_header(),
            "User-Agent": USER_AGENT,
            "Accept": "application/json",
        }
        self._body_headers = {**self._headers, "Content-Type": "application/json"}
        self._signer = Signer(secret) if secret is not None else None
        self._base_path = self.target.base_path.rstrip("/")
        # One connection, so one call at a time (a caller sharing a session between threads waits).
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the connection."""
        self._conn.close()

    def __enter__(self) -> BotSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _drop_if_stale(self) -> None:
        # Like urllib3: a kept-alive socket that is readable before we sent anything was closed
        # by the bot (idle timeout) or holds junk; reconnect instead of failing the call.
        wrapped = self._conn.sock
        if wrapped is None:
            return
        sock = wrapped.sock if isinstance(wrapped, _DeadlineSocket) else wrapped
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            readable = [sock]
        if readable:
            self._conn.close()

    def request(
        self, method: str, path: str, payload: Any = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> Response:
        """One call with a total time bound; raise OutboundError with a FaultCode on any failure."""
        # orjson: compact UTF-8 JSON like json.dumps(separators=(",", ":")), ~5x faster on a 4 KB view.
        body = None if payload is None else orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
        headers = dict(self._headers if body is None else self._body_headers)
        if self._signer is not None:
            headers.update(self._signer.headers(body or b""))
        with self._lock:
            start = time.monotonic()
            self._deadline_at = start + timeout_s
            conn = self._conn
            reusable = False
            resp: http.client.HTTPResponse | None = None
            try:
                self._drop_if_stale()
                conn.made = conn.sock is not None
                conn.body_follows = body is not None
                conn.request(method, self._base_path + "/" + path.lstrip("/"), body, headers)
                resp = conn.getresponse()
                declared = declared_length(resp.msg.get_all("Content-Length") or ())
                if declared is not None and declared > self.max_bytes:
                    raise OutboundError(
                        FaultCode.RESPONSE_TOO_LARGE, f"body of {declared} bytes is over the bound"
                    )
                chunks: list[bytes] = []
                size = 0
                while True:
                    # read1: whatever has arrived (one recv), so the deadline is checked as bytes drip in.
                    chunk = resp.read1(16384)
                    if not chunk:
                        break
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise OutboundError(FaultCode.RESPONSE_TOO_LARGE, f"body over {self.max_bytes} bytes")
                    chunks.append(chunk)
                reusable = not resp.will_close
            except TimeoutError as exc:
                raise OutboundError(
                    FaultCode.TIMEOUT,
                    f"no complete answer within {timeout_s:.3f}s: {exc}",
                    reached=conn.made,  # False: no connection was made
                ) from None
            except (http.client.HTTPException, OSError) as exc:
                raise OutboundError(
                    FaultCode.CONNECTION_ERROR, f"connection failed: {exc!r}", reached=conn.made
                ) from None
            finally:
                if resp is not None:
                    resp.close()  # hands the connection back (http.client refuses a new request before)
                if not reusable:
                    # A half-read, failed or `Connection: close` answer: the next call reconnects.
                    conn.close()
            elapsed = time.monotonic() - start
        if elapsed > timeout_s:
            raise OutboundError(FaultCode.TIMEOUT, f"answer took {elapsed:.3f}s, over {timeout_s:.3f}s")
        assert resp is not None
        result = Response(resp.status, b"".join(chunks), elapsed, dict(resp.getheaders()))
        if resp.status != 200:
            raise OutboundError(
                FaultCode.HTTP_STATUS, f"bot answered HTTP {resp.status}", resp.status, result.body
            )
        return result

    def get_json(self, path: str = "/", timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
        """GET `path` and return its JSON body."""
        return self.request("GET", path, None, timeout_s).json()

    def post_json(self, path: str, payload: Any, timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
        """POST `payload` as signed JSON to `path` and return the JSON answer."""
        return self.request("POST", path, payload, timeout_s).json()
