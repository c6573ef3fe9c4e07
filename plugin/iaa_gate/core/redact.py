"""Keeping secrets out of what iaa-gate prints and writes."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit, urlunsplit


def redact_url(url: str) -> str:
    """``url`` without credentials embedded in it (``user:password@``).

    >>> redact_url("https://bot:s3cret@ls.example.com:8080/")
    'https://ls.example.com:8080/'
    >>> redact_url("http://localhost:8080")
    'http://localhost:8080'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.rpartition("@")[2] if "@" in url else url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def plain_http_warning(url: str) -> str | None:
    """A warning when an API key would go over plain ``http://`` to a host that is not this
    machine (loopback), else ``None``.

    >>> plain_http_warning("http://127.0.0.1:8080") is None
    True
    >>> plain_http_warning("http://ls.example.com")[:56]
    'the API key is sent over plain http:// to ls.example.com'
    """
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError:
        return None
    if parts.scheme != "http" or host == "localhost" or host.endswith(".localhost"):
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"the API key is sent over plain http:// to {host}: anyone on the network can read it; "
        "use https://"
    )
