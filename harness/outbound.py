"""Safe outbound HTTP to user-supplied bot URLs (shared by the API's bot submission and the harness).

A bot URL is user input, so a call to it must not become a way into the platform's own network
(server-side request forgery). The rules:

- only ``http`` and ``https`` URLs without credentials;
- the host is resolved once and every connection is pinned to that address (the URL is rewritten
  to the IP; the ``Host`` header and, for https, SNI and certificate checks keep the name), so a
  DNS answer that changes between check and use (DNS rebinding) can't redirect the call;
- loopback, private, link-local, multicast, reserved, unspecified and cloud-metadata addresses
  are refused unless ``TRICKARENA_ALLOWED_NETWORKS`` (a comma-separated CIDR list) allows them.
  Unset, it allows loopback only (a local run: bots on this machine); set it to an empty
  string to allow no special network at all. Cloud-metadata addresses are refused even inside
  an allowed network unless the list names them exactly;
- redirects are never followed; responses are bounded in size and in total time.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import requests
from requests.adapters import HTTPAdapter

from bots.protocol import FaultCode, sign

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOWED_NETWORKS_ENV = "TRICKARENA_ALLOWED_NETWORKS"
DEFAULT_ALLOWED = "127.0.0.0/8,::1/128"
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
MAX_RESPONSE_BYTES = 256 * 1024
DEFAULT_TIMEOUT_S = 5.0
USER_AGENT = "TrickArena/1 (+bot protocol)"


class OutboundError(Exception):
    """An outbound call was refused or failed; `code` is machine-readable (a FaultCode or a URL error)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


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
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        addresses = [str(ipaddress.ip_address(host))]
    except ValueError:
        try:
            addresses = resolver(host, port)
        except (OSError, UnicodeError) as exc:
            raise OutboundError(FaultCode.CONNECTION_ERROR, f"cannot resolve {host!r}: {exc}") from None
    if not addresses:
        raise OutboundError(FaultCode.CONNECTION_ERROR, f"{host!r} resolves to no address")
    # Every answer must pass: otherwise a name with one public and one private record
    # would be accepted at submission and might reach the private one later.
    for address in addresses:
        reason = policy.refusal(address)
        if reason is not None:
            raise OutboundError(
                FaultCode.FORBIDDEN_ADDRESS, f"{host!r} resolves to {address}, a refused {reason}"
            )
    base = urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))
    return Target(base, parts.scheme, host, port, parts.path, addresses[0])


# --------------------------------------------------------------------------- pinned session


class PinnedAdapter(HTTPAdapter):
    """Requests go to the pinned IP while TLS still uses and verifies the original host name."""

    def __init__(self, server_hostname: str, **kwargs: Any) -> None:
        self._server_hostname = server_hostname
        super().__init__(**kwargs)

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Add SNI and hostname verification for the original name to the pool key."""
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(request, verify, cert)
        if host_params.get("scheme") == "https":
            pool_kwargs["server_hostname"] = self._server_hostname
            pool_kwargs["assert_hostname"] = self._server_hostname
        return host_params, pool_kwargs


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
            return json.loads(self.body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise OutboundError(FaultCode.MALFORMED_BODY, f"body is not JSON: {exc}") from None


class BotSession:
    """Connection-reusing, pinned, signed HTTP client for one bot URL."""

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
        self._session = requests.Session()
        self._session.trust_env = False  # no proxies or netrc from the environment
        adapter = PinnedAdapter(self.target.host, pool_connections=1, pool_maxsize=4, max_retries=0)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)

    def close(self) -> None:
        """Close the pooled connections."""
        self._session.close()

    def __enter__(self) -> BotSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(
        self, method: str, path: str, payload: Any = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> Response:
        """One call with a total time bound; raise OutboundError with a FaultCode on any failure."""
        body = b"" if payload is None else json.dumps(payload, separators=(",", ":")).encode("utf-8")
        headers = {"Host": self.target.host_header(), "User-Agent": USER_AGENT, "Accept": "application/json"}
        if payload is not None:
            headers["Content-Type"] = "application/json"
        if self.secret is not None:
            headers.update(sign(self.secret, body))
        start = time.monotonic()
        deadline = start + timeout_s
        try:
            resp = self._session.request(
                method,
                self.target.pinned_url(path),
                data=body if payload is not None else None,
                headers=headers,
                timeout=(timeout_s, timeout_s),
                allow_redirects=False,
                stream=True,
            )
        except requests.Timeout as exc:
            raise OutboundError(FaultCode.TIMEOUT, f"no answer within {timeout_s:.3f}s: {exc}") from None
        except (requests.RequestException, OSError) as exc:
            raise OutboundError(FaultCode.CONNECTION_ERROR, f"connection failed: {exc}") from None
        try:
            chunks: list[bytes] = []
            size = 0
            declared = resp.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
                raise OutboundError(
                    FaultCode.RESPONSE_TOO_LARGE, f"body of {declared} bytes is over the bound"
                )
            for chunk in resp.iter_content(chunk_size=16384):
                size += len(chunk)
                if size > self.max_bytes:
                    raise OutboundError(FaultCode.RESPONSE_TOO_LARGE, f"body over {self.max_bytes} bytes")
                # A bot dripping bytes slowly must not outlive the deadline.
                if time.monotonic() > deadline:
                    raise OutboundError(FaultCode.TIMEOUT, f"body not complete within {timeout_s:.3f}s")
                chunks.append(chunk)
        except requests.Timeout as exc:
            raise OutboundError(FaultCode.TIMEOUT, f"no answer within {timeout_s:.3f}s: {exc}") from None
        except requests.RequestException as exc:
            raise OutboundError(FaultCode.CONNECTION_ERROR, f"reading the answer failed: {exc}") from None
        finally:
            resp.close()
        elapsed = time.monotonic() - start
        if elapsed > timeout_s:
            raise OutboundError(FaultCode.TIMEOUT, f"answer took {elapsed:.3f}s, over {timeout_s:.3f}s")
        result = Response(resp.status_code, b"".join(chunks), elapsed, dict(resp.headers))
        if resp.status_code != 200:
            raise OutboundError(FaultCode.HTTP_STATUS, f"bot answered HTTP {resp.status_code}")
        return result

    def get_json(self, path: str = "/", timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
        """GET `path` and return its JSON body."""
        return self.request("GET", path, None, timeout_s).json()

    def post_json(self, path: str, payload: Any, timeout_s: float = DEFAULT_TIMEOUT_S) -> Any:
        """POST `payload` as signed JSON to `path` and return the JSON answer."""
        return self.request("POST", path, payload, timeout_s).json()
