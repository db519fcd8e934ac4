"""A small market maker: quotes a bid and an ask around a fair price on one option, moves them as the market moves,
leans against the inventory it builds up, and pulls every quote when it stops (and, through the dead man's switch,
when it dies).

    PMX_BASE_URL=http://localhost:3000 PMX_API_KEY=pmx_live_... python3 market_maker.py --option 12

Both quotes are post-only limit orders, so it only ever makes liquidity: a YES bid is a BUY YES, a YES ask a BUY NO
at 100 minus the price (the exchange keeps one ladder per option). Standard library only, like the client.
"""

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Dict, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pmx_client import ApiError, Client, Conflict, limit_order  # noqa: E402


def fair_price(client: Client, option_id: str) -> int:
    """The mid of the best bid and ask (YES cents), else the last trade, else 50."""
    [ticker] = client.tickers(option_ids=[option_id])
    bid, ask = ticker["bestBidCents"], ticker["bestAskCents"]
    if bid is not None and ask is not None:
        return round((bid + ask) / 2)
    return ticker["lastPriceCents"] or 50


def inventory(client: Client, option_id: str) -> int:
    """YES shares held minus NO shares held in this option."""
    held = {p["side"]: p["quantity"] for p in client.portfolio()["data"] if p["optionId"] == option_id}
    return held.get("YES", 0) - held.get("NO", 0)


def clamp(price: int) -> int:
    return max(1, min(99, price))


class Maker:
    def __init__(self, client: Client, option_id: str, size: int, spread: int) -> None:
        self.client = client
        self.option_id = option_id
        self.size = size
        self.spread = spread
        #: The resting quote of each side of the YES ladder: "bid" (BUY YES) and "ask" (BUY NO).
        self.quotes: Dict[str, Optional[dict]] = {"bid": None, "ask": None}

    def targets(self) -> Dict[str, int]:
        """YES prices to quote: around the fair price, leaning away from what it already holds."""
        lean = inventory(self.client, self.option_id) // max(1, self.size)
        fair = fair_price(self.client, self.option_id) - lean
        half = max(1, self.spread // 2)
        bid = clamp(fair - half)
        return {"bid": bid, "ask": clamp(max(bid + 1, fair + half))}

    def quote(self) -> Dict[str, int]:
        targets = self.targets()
        fresh = []
        for side, yes_price in targets.items():
            order = self.quotes[side]
            own_price = yes_price if side == "bid" else 100 - yes_price
            if order and self.still_open(order):
                if order["priceCents"] != own_price:
                    self.quotes[side] = self.client.amend_order(order["id"], price_cents=own_price)["order"]
                continue
            fresh.append((side, own_price))
        if fresh:
            orders = [
                limit_order(self.option_id, "YES" if side == "bid" else "NO", "BUY", self.size, price, post_only=True)
                for side, price in fresh
            ]
            for (side, _), part in zip(fresh, self.client.place_batch(orders)["data"]):
                self.quotes[side] = part.get("order")
        return targets

    def still_open(self, order: dict) -> bool:
        current = self.client.order(order["id"])
        return current["status"] in ("open", "partially_filled")

    def stop(self) -> int:
        return self.client.cancel_all(optionId=self.option_id)["cancelledCount"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--option", required=True, help="the option id to make a market in")
    parser.add_argument("--size", type=int, default=10, help="shares per quote")
    parser.add_argument("--spread", type=int, default=4, help="cents between bid and ask")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between requotes")
    parser.add_argument("--cycles", type=int, default=0, help="stop after this many requotes (0: run until stopped)")
    args = parser.parse_args()

    client = Client(os.environ.get("PMX_BASE_URL", "http://localhost:3000"), api_key=os.environ["PMX_API_KEY"])
    maker = Maker(client, args.option, args.size, args.spread)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    cycle = 0
    try:
        while args.cycles == 0 or cycle < args.cycles:
            # If this process dies, the exchange cancels its quotes within a few intervals.
            client.heartbeat(max(5, int(args.interval * 5)))
            try:
                targets = maker.quote()
                print(f"quoted bid {targets['bid']} ask {targets['ask']} YES", flush=True)
            except Conflict as refused:
                # A quote that would take (the market moved under it): requote on the next cycle.
                print(f"skipped: {refused.code}", flush=True)
            cycle += 1
            time.sleep(args.interval)
    except ApiError as error:
        print(f"stopped by {error}", file=sys.stderr)
        return 1
    finally:
        print(f"pulled {maker.stop()} quotes", flush=True)
        client.request("DELETE", "/api/heartbeat")
    return 0


if __name__ == "__main__":
    sys.exit(main())
