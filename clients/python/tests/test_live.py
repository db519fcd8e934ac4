"""The client against a live service: PMX_BASE_URL names it, PMX_ADMIN_TOKEN is an admin's key or session (to make
markets). `npm run test:clients` starts a service and runs these; against your own: set both and run
`python3 -m unittest discover -s clients/python/tests`."""

import os
import subprocess
import sys
import time
import unittest
import uuid
from pathlib import Path

import pmx_client
from pmx_client import Client

BASE_URL = os.environ.get("PMX_BASE_URL")
ADMIN_TOKEN = os.environ.get("PMX_ADMIN_TOKEN")
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def require_service() -> None:
    if not BASE_URL or not ADMIN_TOKEN:
        raise RuntimeError("set PMX_BASE_URL and PMX_ADMIN_TOKEN to a live service and an admin's key")


def new_trader() -> Client:
    client = Client(BASE_URL or "")
    client.register(f"py-{uuid.uuid4().hex[:12]}@example.com", "correct horse battery")
    return client


def new_market(admin: Client, liquidity_cents: int = 20_000, labels=("Yes",)) -> dict:
    return admin.request(
        "POST",
        "/api/admin/events",
        json={
            "title": f"Python market {uuid.uuid4().hex[:8]}",
            "category": "cricket",
            "closesAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 86_400)),
            "options": [{"label": label, "liquidityCents": liquidity_cents} for label in labels],
            "open": True,
        },
    )


class LiveTest(unittest.TestCase):
    admin: Client

    @classmethod
    def setUpClass(cls) -> None:
        require_service()
        cls.admin = Client(BASE_URL or "", api_key=ADMIN_TOKEN)


class AccountsTest(LiveTest):
    def test_register_then_trade_with_an_api_key(self) -> None:
        client = new_trader()
        session_user = client.me()
        created = client.create_api_key("python bot")
        self.assertTrue(created["key"].startswith(created["prefix"]))
        self.assertEqual(client.token, created["key"])
        self.assertEqual(client.me()["id"], session_user["id"])
        self.assertIn(created["id"], [key["id"] for key in client.api_keys()])

        client.revoke_api_key(created["id"])
        with self.assertRaises(pmx_client.Unauthorized) as caught:
            client.me()
        self.assertEqual(caught.exception.code, "UNAUTHENTICATED")
        self.assertIsInstance(caught.exception, pmx_client.UnauthenticatedError)

    def test_login_and_logout(self) -> None:
        email = f"py-{uuid.uuid4().hex[:12]}@example.com"
        Client(BASE_URL or "").register(email, "correct horse battery")
        client = Client(BASE_URL or "")
        result = client.login(email, "correct horse battery")
        self.assertEqual(result["user"]["email"], email)
        client.logout()
        self.assertIsNone(client.token)
        with self.assertRaises(pmx_client.InvalidCredentialsError):
            client.login(email, "not the password")


class MarketDataTest(LiveTest):
    def test_events_pages_and_lookups_by_id(self) -> None:
        markets = [new_market(self.admin) for _ in range(3)]
        ids = [market["id"] for market in markets]
        trader = new_trader()
        paged = [event["id"] for event in trader.paginate("/api/events", {"status": "open"}, page_size=1)]
        self.assertTrue(set(ids) <= set(paged), "every page is walked")
        self.assertEqual(len(paged), len(set(paged)))
        self.assertEqual([event["id"] for event in trader.events_by_ids(ids)], list(reversed(ids)))
        option_ids = [market["options"][0]["id"] for market in markets]
        self.assertEqual({option["id"] for option in trader.options(option_ids)}, set(option_ids))
        tickers = trader.tickers(option_ids=option_ids)
        self.assertEqual({ticker["optionId"] for ticker in tickers}, set(option_ids))
        self.assertEqual(trader.event(markets[0]["slug"])["id"], ids[0])

    def test_order_book_quote_candles_and_status(self) -> None:
        market = new_market(self.admin)
        option_id = market["options"][0]["id"]
        trader = new_trader()
        book = trader.order_book(option_id)
        self.assertGreater(book["yes"]["asks"][0]["houseQuantity"], 0)
        quote = trader.quote(option_id, "YES", "BUY", 25)
        before = trader.me()["balance"]["cashCents"]
        placed = trader.place_market_trade(option_id, "YES", "BUY", 25, 99)
        self.assertEqual(placed["filledQuantity"], quote["filledQuantity"])
        self.assertEqual(before - trader.me()["balance"]["cashCents"], quote["totalCents"])
        fills = list(trader.fills(orderId=placed["id"]))
        self.assertEqual(sum(fill["quantity"] for fill in fills), 25)
        for interval in ("1m", "5m", "15m", "1h", "6h", "1d"):
            candles = trader.candles(option_id, interval)
            self.assertEqual(candles["interval"], interval)
            self.assertEqual(sum(candle["v"] for candle in candles["data"]), 25)
        tape = list(trader.tape(option_id))
        self.assertEqual(sum(trade["quantity"] for trade in tape), 25)
        self.assertEqual(trader.status()["status"], "trading")
        self.assertAlmostEqual(trader.server_time()["epochMs"] / 1000, time.time(), delta=60)


class TradingTest(LiveTest):
    def test_batch_amend_and_cancel_all(self) -> None:
        market = new_market(self.admin, liquidity_cents=0)
        option_id = market["options"][0]["id"]
        trader = new_trader()
        orders = [pmx_client.limit_order(option_id, "YES", "BUY", 10, price) for price in (20, 21, 22)]
        result = trader.place_batch(orders)
        self.assertEqual([part["status"] for part in result["data"]], [201, 201, 201])
        placed = [part["order"] for part in result["data"]]
        bids = trader.order_book(option_id)["yes"]["bids"]
        self.assertEqual([(level["priceCents"], level["quantity"]) for level in bids], [(22, 10), (21, 10), (20, 10)])

        shrunk = trader.amend_order(placed[0]["id"], remaining_quantity=4)
        self.assertTrue(shrunk["priorityKept"])
        self.assertEqual(shrunk["order"]["id"], placed[0]["id"], "a smaller order keeps its id and its place")
        moved = trader.amend_order(placed[1]["id"], price_cents=25)
        self.assertFalse(moved["priorityKept"])
        self.assertNotEqual(moved["order"]["id"], placed[1]["id"])
        self.assertEqual(moved["order"]["replacesOrderId"], placed[1]["id"])
        self.assertEqual(trader.order(placed[1]["id"])["cancelReason"], "replaced")

        open_orders = list(trader.orders("open"))
        self.assertEqual(len(open_orders), 3)
        cancelled = trader.cancel_all(optionId=option_id)
        self.assertEqual(cancelled["cancelledCount"], 3)
        self.assertEqual(list(trader.orders("open")), [])
        self.assertEqual(trader.order_book(option_id)["yes"]["bids"], [])

    def test_positions_follow_trades_and_settlements_list(self) -> None:
        market = new_market(self.admin)
        option_id = market["options"][0]["id"]
        trader = new_trader()
        trader.place_market_trade(option_id, "NO", "BUY", 12, 99)
        trader.place_market_trade(option_id, "NO", "SELL", 5, 1)
        portfolio = trader.portfolio()
        [position] = [p for p in portfolio["data"] if p["optionId"] == option_id]
        self.assertEqual((position["side"], position["quantity"]), ("NO", 7))
        self.assertEqual(portfolio["summary"]["openOrders"], 0)
        self.assertEqual(list(trader.settlements()), [])

    def test_positions_come_page_after_page_with_the_whole_summary(self) -> None:
        market = new_market(self.admin)
        option_id = market["options"][0]["id"]
        other = new_market(self.admin)["options"][0]["id"]
        trader = new_trader()
        trader.place_market_trade(option_id, "YES", "BUY", 4, 99)
        trader.place_market_trade(option_id, "NO", "BUY", 3, 99)
        trader.place_market_trade(other, "YES", "BUY", 2, 99)
        whole = trader.portfolio()
        self.assertEqual(len(whole["data"]), 3)
        self.assertIsNone(whole["nextCursor"])
        self.assertEqual(list(trader.positions(page_size=1)), whole["data"])
        first = trader.portfolio(limit=1)
        self.assertEqual(len(first["data"]), 1)
        self.assertIsNotNone(first["nextCursor"])
        self.assertEqual(first["summary"], whole["summary"])
        with self.assertRaises(pmx_client.ValidationFailedError):
            trader.portfolio(limit=501)

    def test_an_idempotency_key_places_one_order(self) -> None:
        market = new_market(self.admin, liquidity_cents=0)
        option_id = market["options"][0]["id"]
        trader = new_trader()
        key = pmx_client.new_idempotency_key()
        first = trader.place_limit_order(option_id, "YES", "BUY", 3, 30, idempotency_key=key)
        second = trader.place_limit_order(option_id, "YES", "BUY", 3, 30, idempotency_key=key)
        self.assertEqual(first["id"], second["id"])
        self.assertEqual(len(list(trader.orders("open"))), 1)
        with self.assertRaises(pmx_client.IdempotencyMismatchError):
            trader.place_limit_order(option_id, "YES", "BUY", 4, 30, idempotency_key=key)


class ErrorsTest(LiveTest):
    def test_each_refusal_raises_the_class_of_its_code(self) -> None:
        market = new_market(self.admin, liquidity_cents=0)
        option_id = market["options"][0]["id"]
        trader = new_trader()
        with self.assertRaises(pmx_client.InsufficientFundsError) as funds:
            trader.place_limit_order(option_id, "YES", "BUY", 1_000_000, 99)
        self.assertIsInstance(funds.exception, pmx_client.PaymentRequired)
        self.assertEqual(funds.exception.status, 402)
        self.assertIn("neededCents", funds.exception.details)
        with self.assertRaises(pmx_client.InsufficientSharesError):
            trader.place_limit_order(option_id, "YES", "SELL", 5, 50)
        with self.assertRaises(pmx_client.NoLiquidityError):
            trader.place_market_trade(option_id, "YES", "BUY", 5, 99)
        with self.assertRaises(pmx_client.FokNotFilledError):
            trader.place_limit_order(option_id, "YES", "BUY", 5, 60, time_in_force="FOK")
        resting = trader.place_limit_order(option_id, "YES", "BUY", 5, 40, post_only=True)
        with self.assertRaises(pmx_client.PostOnlyWouldTakeError):
            new_trader().place_limit_order(option_id, "NO", "BUY", 5, 60, post_only=True)
        trader.cancel_order(resting["id"])
        with self.assertRaises(pmx_client.OrderNotOpenError) as not_open:
            trader.cancel_order(resting["id"])
        self.assertIsInstance(not_open.exception, pmx_client.Conflict)
        with self.assertRaises(pmx_client.NotFoundError):
            trader.order_book("987654321")
        with self.assertRaises(pmx_client.ValidationFailedError) as invalid:
            trader.place_limit_order(option_id, "YES", "BUY", 5, 100)
        self.assertIsInstance(invalid.exception, pmx_client.BadRequest)
        with self.assertRaises(pmx_client.ForbiddenError):
            trader.request("GET", "/api/admin/events")


class MarketMakerExampleTest(LiveTest):
    def test_quotes_both_sides_then_pulls_its_orders(self) -> None:
        market = new_market(self.admin, liquidity_cents=0)
        option_id = market["options"][0]["id"]
        maker = new_trader()
        key = maker.create_api_key("market maker")["key"]
        run = subprocess.run(
            [sys.executable, str(EXAMPLES / "market_maker.py"), "--option", option_id, "--cycles", "3", "--interval", "0.2"],
            env={**os.environ, "PMX_BASE_URL": BASE_URL or "", "PMX_API_KEY": key},
            capture_output=True,
            text=True,
            timeout=120,
        )
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("quoted", run.stdout)
        self.assertEqual(list(maker.orders("open")), [], "it cancels its quotes when it stops")
        history = list(maker.orders("history"))
        self.assertGreaterEqual(len(history), 2)
        self.assertEqual({order["side"] for order in history}, {"YES", "NO"})


if __name__ == "__main__":
    unittest.main()
