"""A Python client of the prediction-market exchange's API: standard library only, Python 3.9 or newer.

    from pmx_client import Client
    client = Client("http://localhost:3000", api_key="pmx_live_...")
    for event in client.events(status="open"):
        print(event["slug"], [option["yesPriceCents"] for option in event["options"]])
"""

from . import models
from .client import Client, __version__, limit_order, new_idempotency_key
from .errors import (
    ApiError,
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    PaymentRequired,
    PmxError,
    ServiceUnavailable,
    TooManyRequests,
    TransportError,
    Unauthorized,
    UnsupportedMediaType,
)
from .errors_by_code import *  # noqa: F401,F403 (one class per error code, e.g. InsufficientSharesError)
from .errors_by_code import ERRORS_BY_CODE

__all__ = [
    "ApiError",
    "BadRequest",
    "Client",
    "Conflict",
    "ERRORS_BY_CODE",
    "Forbidden",
    "NotFound",
    "PayloadTooLarge",
    "PaymentRequired",
    "PmxError",
    "ServiceUnavailable",
    "TooManyRequests",
    "TransportError",
    "Unauthorized",
    "UnsupportedMediaType",
    "__version__",
    "limit_order",
    "models",
    "new_idempotency_key",
] + [cls.__name__ for cls in ERRORS_BY_CODE.values()]
