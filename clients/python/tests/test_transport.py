"""The wire against a local fake service: waits where the service asks (Retry-After), retries only what is safe to
send again, keeps one Idempotency-Key across the retries of an order, and raises each error as the class of its
code. Needs nothing but Python."""

import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple

import pmx_client
from pmx_client import Client
from pmx_client.http import retry_after_seconds

Answer = Tuple[int, Dict[str, str], Optional[dict]]


class FakeService:
    """Answers each request with the next scripted answer, and records what it was sent."""

    def __init__(self, answers: List[Answer]) -> None:
        self.answers = list(answers)
        self.requests: List[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def handle_one(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                fake.requests.append(
                    {
                        "method": self.command,
                        "path": self.path,
                        "headers": dict(self.headers),
                        "body": json.loads(body) if body else None,
                    }
                )
                status, headers, payload = fake.answers.pop(0)
                data = json.dumps(payload).encode() if payload is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = handle_one

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def error(status: int, code: str, headers: Optional[Dict[str, str]] = None, details: object = None) -> Answer:
    body = {"error": f"{code} happened", "code": code}
    if details is not None:
        body["details"] = details
    return status, headers or {}, body


class TransportTest(unittest.TestCase):
    def start(self, answers: List[Answer], **options: float) -> Tuple[FakeService, Client, List[float]]:
        fake = FakeService(answers)
        self.addCleanup(fake.close)
        client = Client(fake.url, api_key="pmx_live_test", **options)  # type: ignore[arg-type]
        slept: List[float] = []
        client.transport.sleep = slept.append
        return fake, client, slept

    def test_waits_as_long_as_a_429_asks_then_answers(self) -> None:
        fake, client, slept = self.start(
            [error(429, "RATE_LIMITED", {"Retry-After": "2"}), (200, {}, {"status": "trading"})]
        )
        self.assertEqual(client.request("GET", "/api/status"), {"status": "trading"})
        self.assertEqual(slept, [2.0])
        self.assertEqual(len(fake.requests), 2)
        self.assertEqual(fake.requests[0]["headers"]["Authorization"], "Bearer pmx_live_test")

    def test_an_order_keeps_its_idempotency_key_across_retries(self) -> None:
        fake, client, slept = self.start(
            [error(503, "OPTION_BUSY", {"Retry-After": "1"}), (201, {}, {"id": "7", "status": "open"})]
        )
        placed = client.place_limit_order("12", "YES", "BUY", 3, 40, post_only=True)
        self.assertEqual(placed["id"], "7")
        keys = [request["headers"]["Idempotency-Key"] for request in fake.requests]
        self.assertEqual(len(keys), 2)
        self.assertEqual(keys[0], keys[1])
        self.assertEqual(
            fake.requests[0]["body"],
            {"optionId": "12", "side": "YES", "action": "BUY", "quantity": 3, "limitPriceCents": 40, "postOnly": True},
        )

    def test_gives_up_after_its_retries_with_the_wait_the_service_asked(self) -> None:
        answers = [error(503, "MAINTENANCE", {"Retry-After": "30"}) for _ in range(3)]
        _, client, slept = self.start(answers, max_retries=2, max_wait=5)
        with self.assertRaises(pmx_client.MaintenanceError) as caught:
            client.place_market_trade("12", "YES", "BUY", 1, 99)
        self.assertIsInstance(caught.exception, pmx_client.ServiceUnavailable)
        self.assertEqual(caught.exception.retry_after, 30.0)
        self.assertEqual(slept, [5, 5], "never waits longer than max_wait")

    def test_never_retries_a_refusal_and_raises_its_code_class(self) -> None:
        fake, client, _ = self.start([error(409, "NO_LIQUIDITY"), error(418, "TEAPOT")])
        with self.assertRaises(pmx_client.NoLiquidityError) as caught:
            client.place_market_trade("12", "YES", "BUY", 1, 99)
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "NO_LIQUIDITY"))
        self.assertEqual(len(fake.requests), 1)
        with self.assertRaises(pmx_client.ApiError) as unknown:
            client.request("GET", "/api/brew")
        self.assertEqual((type(unknown.exception), unknown.exception.code), (pmx_client.ApiError, "TEAPOT"))

    def test_a_request_without_a_key_is_not_sent_twice_when_the_connection_fails(self) -> None:
        client = Client("http://127.0.0.1:9", api_key="pmx_live_test", timeout=2)
        slept: List[float] = []
        client.transport.sleep = slept.append
        with self.assertRaises(pmx_client.TransportError):
            client.cancel_all()
        self.assertEqual(slept, [])
        with self.assertRaises(pmx_client.TransportError):
            client.order_book("1")
        self.assertEqual(len(slept), 3, "a read is retried")

    def test_pages_follow_the_cursor_to_the_end(self) -> None:
        fake, client, _ = self.start(
            [(200, {}, {"data": [1, 2], "nextCursor": "abc"}), (200, {}, {"data": [3], "nextCursor": None})]
        )
        self.assertEqual(list(client.paginate("/api/events", {"status": "open"}, page_size=2)), [1, 2, 3])
        self.assertEqual(fake.requests[1]["path"], "/api/events?status=open&limit=2&cursor=abc")

    def test_reads_retry_after_as_seconds_or_a_date(self) -> None:
        self.assertEqual(retry_after_seconds("7"), 7.0)
        self.assertEqual(retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0), 10.0)
        self.assertIsNone(retry_after_seconds("soon"))
        self.assertIsNone(retry_after_seconds(None))


if __name__ == "__main__":
    unittest.main()
