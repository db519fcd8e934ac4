"""The client: sessions and API keys, the market data, orders with idempotency keys, and iterators over lists."""

import uuid
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, cast

from . import models as m
from .errors import PmxError
from .http import Transport
from .operations import OPERATIONS

__version__ = "1.0.0"


def new_idempotency_key() -> str:
    """A fresh key for one order: a retry sent with it is answered with the first result, never placed twice."""
    return str(uuid.uuid4())


class Client:
    """One account on one exchange. Prices are integer cents (1..99), quantities whole shares, ids strings.

    Every order is sent with an ``Idempotency-Key`` (one is made when none is given), so a retry after a lost answer
    never places a second order. Answers 429 and 503 are retried after the ``Retry-After`` the service sends.
    """

    def __init__(
        self,
        base_url: str = "http://localhost:3000",
        api_key: Optional[str] = None,
        *,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_wait: float = 30.0,
    ) -> None:
        self.token = api_key
        self.transport = Transport(
            base_url,
            timeout=timeout,
            max_retries=max_retries,
            max_wait=max_wait,
            user_agent=f"pmx-client-python/{__version__}",
        )

    # -- the wire -------------------------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Any = None,
        idempotency_key: Optional[str] = None,
    ) -> Any:
        """Any request of the API, answered with its decoded JSON (errors raised as ``ApiError`` subclasses)."""
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else None
        return self.transport.send(method, path, token=self.token, params=params, body=json, headers=headers)

    def call(
        self,
        operation_id: str,
        path_params: Optional[Mapping[str, Any]] = None,
        *,
        params: Optional[Mapping[str, Any]] = None,
        json: Any = None,
        idempotency_key: Optional[str] = None,
    ) -> Any:
        """Any operation by its operationId in the OpenAPI document, e.g. ``call("getOrderBook", {"optionId": 7})``."""
        if operation_id not in OPERATIONS:
            raise PmxError(f"no operation {operation_id!r}")
        method, route = OPERATIONS[operation_id]
        for name, value in (path_params or {}).items():
            route = route.replace("{" + name + "}", str(value))
        return self.request(method, route, params=params, json=json, idempotency_key=idempotency_key)

    def paginate(self, path: str, params: Optional[Mapping[str, Any]] = None, page_size: int = 200) -> Iterator[Any]:
        """Every item of a cursor-paginated list, page after page (``{"data": [...], "nextCursor": ...}``)."""
        query: Dict[str, Any] = {**(params or {}), "limit": page_size}
        while True:
            page = self.request("GET", path, params=query)
            yield from page["data"]
            if not page.get("nextCursor"):
                return
            query["cursor"] = page["nextCursor"]

    # -- sessions and keys ----------------------------------------------------------------------------------------

    def register(self, email: str, password: str, **fields: Any) -> Dict[str, Any]:
        """Opens an account and signs in with its session."""
        result = self.request("POST", "/api/auth/register", json={"email": email, "password": password, **fields})
        self.token = result["token"]
        return cast(Dict[str, Any], result)

    def login(self, email: str, password: str) -> m.LoginResult:
        """Signs in: the session token is used from now on."""
        result = self.request("POST", "/api/auth/login", json={"email": email, "password": password})
        self.token = result["token"]
        return cast(m.LoginResult, result)

    def logout(self) -> None:
        self.request("POST", "/api/auth/logout")
        self.token = None

    def create_api_key(self, name: str, use: bool = True) -> m.CreatedApiKey:
        """A new API key (shown once); with ``use`` the client goes on with it instead of the session."""
        created = cast(m.CreatedApiKey, self.request("POST", "/api/me/api-keys", json={"name": name}))
        if use:
            self.token = created["key"]
        return created

    def api_keys(self) -> List[m.ApiKey]:
        return cast(List[m.ApiKey], self.request("GET", "/api/me/api-keys")["data"])

    def revoke_api_key(self, key_id: str) -> None:
        self.request("DELETE", f"/api/me/api-keys/{key_id}")

    def me(self) -> m.Me:
        return cast(m.Me, self.request("GET", "/api/auth/me"))

    # -- markets and market data ----------------------------------------------------------------------------------

    def events(self, **filters: Any) -> Iterator[m.EventListItem]:
        """Every market the filters take (``category``, ``q``, ``status``, ``featured``), newest first."""
        return self.paginate("/api/events", filters)

    def events_by_ids(self, ids: Sequence[str]) -> List[m.EventListItem]:
        return cast(List[m.EventListItem], list(self.paginate("/api/events", {"ids": list(ids)})))

    def event(self, slug: str) -> m.MarketEvent:
        return cast(m.MarketEvent, self.request("GET", f"/api/events/{slug}"))

    def options(self, ids: Sequence[str]) -> List[m.OptionListItem]:
        return cast(List[m.OptionListItem], self.request("GET", "/api/options", params={"ids": list(ids)})["data"])

    def tickers(self, option_ids: Optional[Sequence[str]] = None, event_slug: Optional[str] = None) -> List[m.Ticker]:
        """Tickers of every open market, or of the options named (up to 100), or of one event."""
        params = {"optionIds": list(option_ids) if option_ids else None, "eventSlug": event_slug}
        return cast(List[m.Ticker], self.request("GET", "/api/tickers", params=params)["data"])

    def order_book(self, option_id: str) -> m.OrderBook:
        return cast(m.OrderBook, self.request("GET", f"/api/orderbook/{option_id}"))

    def candles(
        self, option_id: str, interval: str = "1h", start: Optional[str] = None, end: Optional[str] = None
    ) -> m.Candles:
        """OHLC of the YES price per ``1m``, ``5m``, ``15m``, ``1h``, ``6h`` or ``1d`` (ISO 8601 bounds)."""
        params = {"interval": interval, "from": start, "to": end}
        return cast(m.Candles, self.request("GET", f"/api/options/{option_id}/candles", params=params))

    def tape(self, option_id: str) -> Iterator[m.TapeTrade]:
        """The option's executions, newest first."""
        return self.paginate(f"/api/options/{option_id}/trades")

    def quote(
        self, option_id: str, side: str, action: str, quantity: int, price_cents: Optional[int] = None
    ) -> m.Quote:
        """What a market trade of ``quantity`` shares would cost (or bring) right now; nothing is placed."""
        params = {"side": side, "action": action, "quantity": quantity, "priceCents": price_cents}
        return cast(m.Quote, self.request("GET", f"/api/options/{option_id}/quote", params=params))

    def status(self) -> m.TradingStatus:
        return cast(m.TradingStatus, self.request("GET", "/api/status"))

    def server_time(self) -> m.ServerTime:
        return cast(m.ServerTime, self.request("GET", "/api/time"))

    # -- orders ---------------------------------------------------------------------------------------------------

    def place_limit_order(
        self,
        option_id: str,
        side: str,
        action: str,
        quantity: int,
        price_cents: int,
        *,
        time_in_force: Optional[str] = None,
        post_only: Optional[bool] = None,
        expires_at: Optional[str] = None,
        client_order_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> m.PlacedOrder:
        body = limit_order(option_id, side, action, quantity, price_cents, time_in_force, post_only, expires_at)
        if client_order_id:
            body["clientOrderId"] = client_order_id
        key = idempotency_key or new_idempotency_key()
        return cast(m.PlacedOrder, self.request("POST", "/api/limit-orders", json=body, idempotency_key=key))

    def place_market_trade(
        self,
        option_id: str,
        side: str,
        action: str,
        quantity: int,
        worst_price_cents: int,
        *,
        client_order_id: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> m.PlacedOrder:
        """Immediate-or-cancel at prices no worse than ``worst_price_cents``; the unfilled rest is cancelled."""
        body: Dict[str, Any] = {
            "optionId": option_id,
            "side": side,
            "action": action,
            "quantity": quantity,
            "priceCents": worst_price_cents,
        }
        if client_order_id:
            body["clientOrderId"] = client_order_id
        key = idempotency_key or new_idempotency_key()
        return cast(m.PlacedOrder, self.request("POST", "/api/trades", json=body, idempotency_key=key))

    def place_batch(
        self, orders: Iterable[Mapping[str, Any]], idempotency_key: Optional[str] = None
    ) -> m.BatchOrdersResult:
        """Limit orders (request bodies of ``POST /api/limit-orders``) in one request, each with its own result."""
        key = idempotency_key or new_idempotency_key()
        body = {"orders": [dict(order) for order in orders]}
        return cast(m.BatchOrdersResult, self.request("POST", "/api/limit-orders/batch", json=body, idempotency_key=key))

    def amend_order(
        self,
        order_id: str,
        remaining_quantity: Optional[int] = None,
        price_cents: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> m.AmendOrderResult:
        """Fewer shares at the same price keep the order's place; a new price or more shares replace it."""
        changes = {"remainingQuantity": remaining_quantity, "limitPriceCents": price_cents}
        body = {k: v for k, v in changes.items() if v is not None}
        key = idempotency_key or new_idempotency_key()
        path = f"/api/limit-orders/{order_id}/amend"
        return cast(m.AmendOrderResult, self.request("POST", path, json=body, idempotency_key=key))

    def cancel_order(self, order_id: str) -> m.Order:
        return cast(m.Order, self.request("DELETE", f"/api/limit-orders/{order_id}"))

    def cancel_orders(self, order_ids: Sequence[str]) -> m.CancelOrdersResult:
        body = {"orderIds": list(order_ids)}
        return cast(m.CancelOrdersResult, self.request("POST", "/api/limit-orders/cancel", json=body))

    def cancel_all(self, **filters: Any) -> m.CancelAllResult:
        """Cancels every resting order the filters take (``optionId``, ``eventSlug``, ``side``, ``action``)."""
        body = {k: v for k, v in filters.items() if v is not None}
        return cast(m.CancelAllResult, self.request("POST", "/api/limit-orders/cancel-all", json=body))

    def order(self, order_id: str) -> m.OrderListItem:
        return cast(m.OrderListItem, self.request("GET", f"/api/orders/{order_id}"))

    def orders(self, status: str = "open", event_slug: Optional[str] = None) -> Iterator[m.OrderListItem]:
        """Your limit orders: ``open`` (and partly filled) or ``history``, newest first."""
        return self.paginate("/api/limit-orders", {"status": status, "eventSlug": event_slug})

    def fills(self, **filters: Any) -> Iterator[m.Fill]:
        """Your executions (``optionId``, ``eventSlug`` or ``orderId`` narrow them), newest first."""
        return self.paginate("/api/me/fills", filters)

    def heartbeat(self, timeout_seconds: int) -> m.Heartbeat:
        """Arms (or keeps) the dead man's switch: without the next one in time, this key's orders are cancelled."""
        return cast(m.Heartbeat, self.request("POST", "/api/heartbeat", json={"timeoutSeconds": timeout_seconds}))

    # -- portfolio ------------------------------------------------------------------------------------------------

    def portfolio(self, limit: Optional[int] = None) -> m.Portfolio:
        """The summary of all your positions, with every position, or only the first ``limit`` (1..500) of them:
        ``portfolio(limit=1)`` is the light way to read the summary alone."""
        params = None if limit is None else {"limit": limit}
        return cast(m.Portfolio, self.request("GET", "/api/positions", params=params))

    def positions(self, page_size: int = 200) -> Iterator[m.Position]:
        """Every open position, in the order of its option and side, ``page_size`` (1..500) a request."""
        return self.paginate("/api/positions", page_size=page_size)

    def settlements(self, event_slug: Optional[str] = None) -> Iterator[m.Settlement]:
        return self.paginate("/api/me/settlements", {"eventSlug": event_slug})


def limit_order(
    option_id: str,
    side: str,
    action: str,
    quantity: int,
    price_cents: int,
    time_in_force: Optional[str] = None,
    post_only: Optional[bool] = None,
    expires_at: Optional[str] = None,
) -> Dict[str, Any]:
    """The body of one limit order, as ``place_limit_order`` sends it and ``place_batch`` takes a list of."""
    body: Dict[str, Any] = {
        "optionId": option_id,
        "side": side,
        "action": action,
        "quantity": quantity,
        "limitPriceCents": price_cents,
    }
    if time_in_force:
        body["timeInForce"] = time_in_force
    if post_only is not None:
        body["postOnly"] = post_only
    if expires_at:
        body["expiresAt"] = expires_at
    return body

