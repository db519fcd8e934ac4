"""The wire: JSON over HTTP with the standard library, errors raised by code, and waits where the service asks."""

import email.utils
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Mapping, Optional

from .errors import STATUS_ERRORS, ApiError, TransportError
from .errors_by_code import ERRORS_BY_CODE

#: Methods a retry can never repeat the effect of; anything else is retried only with an idempotency key.
SAFE_METHODS = frozenset({"GET", "HEAD", "DELETE"})
#: Statuses that mean the request was refused before anything was done: always safe to send again.
RETRY_STATUSES = frozenset({429, 503})


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """The wait a ``Retry-After`` header asks for: delta-seconds, or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if parsed is None:
        return None
    return max(0.0, parsed.timestamp() - (now if now is not None else time.time()))


def error_from(status: int, body: bytes, headers: Mapping[str, str]) -> ApiError:
    """The exception of an error answer: the class of its code, else of its status."""
    try:
        payload = json.loads(body.decode("utf-8")) if body else {}
    except (UnicodeDecodeError, json.JSONDecodeError):
        payload = {}
    if not isinstance(payload, dict):
        payload = {}
    code = str(payload.get("code") or f"HTTP_{status}")
    message = str(payload.get("error") or body[:200].decode("utf-8", "replace") or f"HTTP {status}")
    cls = ERRORS_BY_CODE.get(code) or STATUS_ERRORS.get(status) or ApiError
    return cls(status, code, message, payload.get("details"), retry_after_seconds(headers.get("Retry-After")))


class Transport:
    """Sends requests to one base URL; retries what the service refused for now, waiting as long as it asked."""

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float,
        max_retries: int,
        max_wait: float,
        user_agent: str,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_wait = max_wait
        self.user_agent = user_agent
        self.sleep = sleep

    def send(
        self,
        method: str,
        path: str,
        *,
        token: Optional[str],
        params: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Dict[str, str]] = None,
    ) -> Any:
        """The decoded JSON of a 2xx answer; an ``ApiError`` for an error answer, after any retries."""
        url = self.base_url + path
        query = {k: _query_value(v) for k, v in (params or {}).items() if v is not None}
        if query:
            url += "?" + urllib.parse.urlencode(query)
        sent = {"Accept": "application/json", "User-Agent": self.user_agent, **(headers or {})}
        if token:
            sent["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            sent["Content-Type"] = "application/json"
        repeatable = method in SAFE_METHODS or "Idempotency-Key" in sent
        attempt = 0
        while True:
            try:
                return self._once(method, url, data, sent)
            except ApiError as error:
                if error.status not in RETRY_STATUSES or attempt >= self.max_retries:
                    raise
                wait = error.retry_after if error.retry_after is not None else 0.5 * 2**attempt
            except TransportError:
                if not repeatable or attempt >= self.max_retries:
                    raise
                wait = 0.5 * 2**attempt
            self.sleep(min(wait, self.max_wait))
            attempt += 1

    def _once(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str]) -> Any:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
                content_type = response.headers.get("Content-Type", "")
        except urllib.error.HTTPError as error:
            raise error_from(error.code, error.read(), error.headers) from None
        except (urllib.error.URLError, OSError) as error:
            raise TransportError(f"{method} {url}: {error}") from error
        if not raw:
            return None
        if "json" not in content_type:
            return raw.decode("utf-8")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise TransportError(f"{method} {url}: the answer is not JSON") from error


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return str(value)
