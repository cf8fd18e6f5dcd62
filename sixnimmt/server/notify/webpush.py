"""Web Push: a message encrypted for one browser's subscription (RFC 8291, ``aes128gcm``, with
``http_ece``) and signed for its push service with the server's VAPID key (RFC 8292, with
``py_vapid``), sent by an HTTP POST (``httpx``). The VAPID key is made once and kept in the
database (:meth:`~.addresses.Addresses.vapid_key`); browsers subscribe with its public half."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
import logging
import os
from typing import Any
from urllib.parse import urlsplit

import http_ece
import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

from .addresses import NotifyError, Subscription

log = logging.getLogger("sixnimmt.server")
#: The largest payload a push service must take (RFC 8291: 4096 bytes of record, less its overhead).
MAX_PAYLOAD = 3993
ENDPOINT_MAX = 1000


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_private_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    return pem.decode()


def check_subscription(endpoint: object, p256dh: object, auth: object, insecure: bool = False) -> Subscription:
    """A browser's subscription as the Push API gives it, or :class:`NotifyError`: an ``https``
    endpoint on a public host (``http`` and any host too where the settings allow it, for a
    receiver in a test), a P-256 public key (65 bytes, a point of the curve) and a 16-byte
    authentication secret, base64url."""
    bad = NotifyError("that is not a push subscription", "notify-push-invalid")
    if not isinstance(endpoint, str) or not isinstance(p256dh, str) or not isinstance(auth, str):
        raise bad
    parts = urlsplit(endpoint)
    schemes = ("https", "http") if insecure else ("https",)
    if len(endpoint) > ENDPOINT_MAX or parts.scheme not in schemes or not parts.hostname:
        raise bad
    if not insecure and not public_host(parts.hostname):
        raise bad  # (the server would POST into its own network for whoever subscribed)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(p256dh))
        secret = unb64url(auth)
    except (ValueError, binascii.Error):
        raise bad from None
    if len(secret) != 16 or len(p256dh) > 100:
        raise bad
    return Subscription(endpoint, p256dh, auth)


def public_host(host: str) -> bool:
    """A push service's host: a name (every push service has one) other than ``localhost``, or an
    address on the public internet; never this machine's or its network's."""
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return host.rstrip(".").lower() != "localhost" and not host.lower().endswith(".localhost")


class Pusher:
    """Encrypts, signs and sends pushes with the server's VAPID key."""

    def __init__(self, private_pem: str, contact: str, ttl: int, client: httpx.AsyncClient | None = None) -> None:
        self.vapid = Vapid02.from_pem(private_pem.encode())
        self.contact = contact
        self.ttl = ttl
        self._client = client or httpx.AsyncClient(timeout=10.0, follow_redirects=False)

    @property
    def public_key(self) -> str:
        """The VAPID public key, base64url of the uncompressed point: the Push API's
        ``applicationServerKey``."""
        point = self.vapid.public_key.public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        return b64url(point)

    def request(self, subscription: Subscription, payload: dict[str, Any], now: float) -> tuple[bytes, dict[str, str]]:
        """The body and headers that deliver ``payload`` to ``subscription``."""
        data = json.dumps(payload, separators=(",", ":")).encode()[:MAX_PAYLOAD]
        sender = ec.generate_private_key(ec.SECP256R1())  # a fresh key per message (RFC 8291, 3.1)
        body = http_ece.encrypt(data, salt=os.urandom(16), private_key=sender, dh=unb64url(subscription.p256dh),
                                auth_secret=unb64url(subscription.auth), version="aes128gcm")
        origin = urlsplit(subscription.endpoint)
        claims = {"aud": f"{origin.scheme}://{origin.netloc}", "exp": int(now) + 12 * 3600, "sub": self.contact}
        headers: dict[str, str] = dict(self.vapid.sign(claims))
        headers.update({"TTL": str(self.ttl), "Content-Encoding": "aes128gcm",
                        "Content-Type": "application/octet-stream", "Urgency": "high"})
        return bytes(body), headers

    async def push(self, subscription: Subscription, payload: dict[str, Any], now: float) -> bool | None:
        """Send; True when the push service took it, None when the subscription is gone for good
        (404 or 410: the caller forgets it), False when this one push failed."""
        body, headers = self.request(subscription, payload, now)
        try:
            response = await self._client.post(subscription.endpoint, content=body, headers=headers)
        except httpx.HTTPError as error:
            log.warning("a push was not sent: %s", type(error).__name__)
            return False
        if response.status_code in (404, 410):
            return None
        if response.status_code >= 300:
            log.warning("a push service answered %d", response.status_code)
            return False
        return True

    async def close(self) -> None:
        await self._client.aclose()
