"""Errors the API answers with, as exceptions: one class per HTTP status, and under it one per error code
(`errors_by_code.py`, generated from the OpenAPI document). Catch a status class (``Conflict``) or a code's class
(``InsufficientSharesError``); every one carries the status, the code, the message and the details."""

from typing import Any, Optional


class PmxError(Exception):
    """Anything this client raises."""


class TransportError(PmxError):
    """The service could not be reached, or answered something that is not the API's JSON."""


class ApiError(PmxError):
    """An error answer of the API: ``{"error": ..., "code": ..., "details": ...}`` with an HTTP status."""

    code = "UNKNOWN"

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Any = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        #: Seconds the service asked to wait before trying again (429 and 503), when it said.
        self.retry_after = retry_after


class BadRequest(ApiError):
    """400: the request is not valid (the details name the fields)."""


class Unauthorized(ApiError):
    """401: no key or session, or one that is unknown, expired or revoked."""


class PaymentRequired(ApiError):
    """402: not enough cash."""


class Forbidden(ApiError):
    """403: not allowed to the caller."""


class NotFound(ApiError):
    """404: no such thing (or not the caller's)."""


class Conflict(ApiError):
    """409: conflicts with the current state; the code says which."""


class PayloadTooLarge(ApiError):
    """413."""


class UnsupportedMediaType(ApiError):
    """415."""


class TooManyRequests(ApiError):
    """429: a rate limit; ``retry_after`` says how long to wait."""


class ServiceUnavailable(ApiError):
    """503: unavailable for now (database, maintenance, a busy market); ``retry_after`` says how long to wait."""


STATUS_ERRORS = {
    400: BadRequest,
    401: Unauthorized,
    402: PaymentRequired,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    429: TooManyRequests,
    503: ServiceUnavailable,
}
