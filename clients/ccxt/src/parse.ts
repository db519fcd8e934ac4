import type {
  Dict,
  OHLCV,
  PredictionEvent,
  PredictionMarket,
  PredictionOrder,
  PredictionPosition,
  PredictionSettlement,
  PredictionTicker,
  PredictionTrade,
} from 'ccxt';
import { type OutcomeLabel, PmxBase } from './base.js';

const LABELS: OutcomeLabel[] = ['YES', 'NO'];

/** Our order statuses in CCXT's words (a partly filled order still rests: open). */
const ORDER_STATUSES: Dict = {
  open: 'open',
  partially_filled: 'open',
  filled: 'closed',
  cancelled: 'canceled',
  expired: 'expired',
};

/** The answers of the API in CCXT's unified structures. */
export class PmxParse extends PmxBase {
  /** An event of the API with its options, each a binary market with a YES and a NO outcome. */
  parseEvent(event: Dict): PredictionEvent {
    const markets = this.safeList(event, 'options', []).map((option: Dict) =>
      this.parseMarketOf(option, event),
    );
    const status = this.safeString(event, 'status');
    const closesAt = this.safeString(event, 'closesAt');
    const createdAt = this.safeString(event, 'createdAt');
    return {
      info: event,
      id: this.safeString(event, 'id') as string,
      slug: this.safeString(event, 'slug'),
      event: this.shortenSlug(this.safeString(event, 'title', this.safeString(event, 'slug'))),
      title: this.safeString(event, 'title'),
      description: this.safeString(event, 'description'),
      category: this.safeString(event, 'category'),
      tags: [this.safeString(event, 'category', '') as string].filter((tag) => tag !== ''),
      markets: markets as PredictionMarket[],
      mutuallyExclusive: this.safeBool(event, 'exclusive'),
      active: status === 'open',
      resolved: status === 'resolved' || status === 'settled',
      volume: markets.reduce(
        (sum: number, market: Dict) => sum + (this.safeNumber(market, 'volume') ?? 0),
        0,
      ),
      created: this.parse8601(createdAt),
      createdDatetime: createdAt,
      end: this.parse8601(closesAt),
      endDatetime: closesAt,
    };
  }

  /** One option of an event as a CCXT binary market: `option` carries its prices, `event` its event's fields. */
  parseMarketOf(option: Dict, event: Dict): Dict {
    const optionId = this.safeString(option, 'id') as string;
    const eventSlug = this.safeString2(event, 'slug', 'eventSlug');
    const optionLabel = this.safeString(option, 'label');
    const status = this.safeString2(event, 'status', 'eventStatus');
    const resolution = this.safeString(option, 'resolution');
    const closesAt = this.safeString(event, 'closesAt');
    const market = this.slugToMarketSymbol(eventSlug, optionLabel);
    const precision = { amount: 1, price: 0.01 };
    const outcomes = LABELS.map((label) => ({
      info: option,
      id: this.outcomeIdOf(optionId, label),
      outcomeId: this.outcomeIdOf(optionId, label),
      outcome: this.slugToOutcomeSymbol(eventSlug, optionLabel, label),
      market,
      marketId: optionId,
      label,
      price: this.sidePrice(this.safeInteger(option, 'yesPriceCents'), label),
      active: status === 'open',
      winner: resolution === undefined || resolution === 'VOID' ? undefined : resolution === label,
      settleFraction:
        resolution === undefined ? undefined : resolution === 'VOID' ? 0.5 : resolution === label ? 1 : 0,
      precision,
    }));
    return {
      id: optionId,
      market,
      event: this.shortenSlug(this.safeString(event, 'title', eventSlug)),
      eventId: this.safeString2(event, 'eventId', 'id'),
      eventSlug,
      title: optionLabel,
      base: 'USD',
      quote: 'USD',
      baseId: optionId,
      quoteId: 'USD',
      type: 'prediction',
      marketType: 'binary',
      executionModel: 'clob',
      spot: false,
      margin: false,
      swap: false,
      future: false,
      option: false,
      prediction: true,
      contract: false,
      active: status === 'open',
      closed: status !== 'open',
      resolved: resolution !== undefined,
      resolvedOutcome: outcomes.find((outcome) => outcome.winner === true)?.outcome,
      end: this.parse8601(closesAt),
      endDatetime: closesAt,
      volume: this.safeInteger(option, 'volumeShares'),
      taker: undefined,
      maker: 0,
      percentage: true,
      tierBased: false,
      precision,
      limits: {
        amount: { min: 1, max: undefined },
        price: { min: 0.01, max: 0.99 },
        cost: { min: undefined, max: undefined },
        leverage: { min: 1, max: 1 },
      },
      outcomes,
      info: option,
    };
  }

  /** A ticker of the API (YES prices) from one outcome's point of view: a NO bid is 1 − the YES ask. */
  tickerOf(ticker: Dict, label: OutcomeLabel): PredictionTicker {
    const optionId = this.safeString(ticker, 'optionId') as string;
    const yes = label === 'YES';
    const bid = this.safeInteger(ticker, yes ? 'bestBidCents' : 'bestAskCents');
    const ask = this.safeInteger(ticker, yes ? 'bestAskCents' : 'bestBidCents');
    const eventSlug = this.safeString(ticker, 'eventSlug');
    const optionLabel = this.safeString(ticker, 'optionLabel');
    return this.safePredictionTicker({
      outcome: this.outcomeHandle(optionId, label, eventSlug, optionLabel),
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      market: this.slugToMarketSymbol(eventSlug, optionLabel),
      timestamp: this.milliseconds(),
      bid: this.sidePrice(bid, label),
      bidVolume: this.safeInteger(ticker, yes ? 'bestBidQuantity' : 'bestAskQuantity'),
      ask: this.sidePrice(ask, label),
      askVolume: this.safeInteger(ticker, yes ? 'bestAskQuantity' : 'bestBidQuantity'),
      open: this.sidePrice(this.safeInteger(ticker, 'previousPriceCents'), label),
      close: this.sidePrice(this.safeInteger(ticker, 'lastPriceCents'), label),
      baseVolume: this.safeInteger(ticker, 'volume24hShares'),
      quoteVolume: this.cents(this.safeInteger(ticker, 'volume24hCents')),
      openInterest: this.safeInteger(ticker, 'openInterest'),
      info: ticker,
    });
  }

  /**
   * An order of the API (market or limit, as placed, listed or streamed). A placed order carries its trades, whose
   * prices give its cost and average exactly; a listed one only its limit price.
   */
  override parsePredictionOrder(order: Dict): PredictionOrder {
    const optionId = this.safeString(order, 'optionId') as string;
    const label = this.safeString(order, 'side') as OutcomeLabel;
    const kind = this.safeString(order, 'kind');
    const postOnly = this.safeBool(order, 'postOnly');
    const trades = this.safeList(order, 'trades', []).map((trade: Dict) => this.tradeOf(trade, order));
    const costCents = this.safeList(order, 'trades', []).reduce(
      (sum: number, trade: Dict) =>
        sum + (this.safeInteger(trade, 'priceCents') ?? 0) * (this.safeInteger(trade, 'quantity') ?? 0),
      0,
    );
    const filled = this.safeInteger(order, 'filledQuantity');
    const created = this.safeString(order, 'createdAt');
    const parsed = this.safePredictionOrder({
      id: this.safeString(order, 'id'),
      clientOrderId: this.safeString(order, 'clientOrderId'),
      timestamp: this.parse8601(created),
      datetime: created,
      lastUpdateTimestamp: this.parse8601(this.safeString(order, 'updatedAt')),
      status: ORDER_STATUSES[this.safeString(order, 'status', '') as string],
      type: kind,
      timeInForce: postOnly
        ? 'PO'
        : this.safeString(order, 'timeInForce', kind === 'market' ? 'IOC' : undefined),
      postOnly,
      side: this.safeStringLower(order, 'action'),
      price: this.cents(this.safeInteger(order, 'priceCents')),
      amount: this.safeInteger(order, 'quantity'),
      filled,
      remaining: this.safeInteger(order, 'remainingQuantity'),
      cost: trades.length > 0 ? costCents / 100 : undefined,
      average: trades.length > 0 && filled ? costCents / 100 / filled : undefined,
      fee: this.feeOf(this.safeInteger(order, 'feeCents')),
      outcome: this.outcomeHandle(
        optionId,
        label,
        this.safeString(order, 'eventSlug'),
        this.safeString(order, 'optionLabel'),
      ),
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      info: order,
    });
    parsed.trades = trades;
    return parsed;
  }

  /** One of the taker's trades of a placed order (`PlacedOrder.trades`), with the fee it paid. */
  tradeOf(trade: Dict, order: Dict): PredictionTrade {
    const optionId = this.safeString(order, 'optionId') as string;
    const label = this.safeString(trade, 'side') as OutcomeLabel;
    const created = this.safeString(trade, 'createdAt');
    const price = this.cents(this.safeInteger(trade, 'priceCents'));
    return this.safePredictionTrade({
      id: this.safeString(trade, 'id'),
      order: this.safeString(trade, 'orderId'),
      timestamp: this.parse8601(created),
      datetime: created,
      type: this.safeString(order, 'kind'),
      side: this.safeStringLower(trade, 'action'),
      takerOrMaker: this.safeString(trade, 'liquidity'),
      price,
      amount: this.safeInteger(trade, 'quantity'),
      fee: this.feeOf(this.safeInteger(trade, 'feeCents')),
      outcome: this.outcomeHandle(optionId, label),
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      info: trade,
    });
  }

  /** An execution of your own (`/api/me/fills`): maker or taker, its price in your side, its fee. */
  fillOf(fill: Dict): PredictionTrade {
    const optionId = this.safeString(fill, 'optionId') as string;
    const label = this.safeString(fill, 'side') as OutcomeLabel;
    const created = this.safeString(fill, 'createdAt');
    return this.safePredictionTrade({
      id: this.safeString(fill, 'fillId'),
      order: this.safeString(fill, 'orderId'),
      timestamp: this.parse8601(created),
      datetime: created,
      side: this.safeStringLower(fill, 'action'),
      takerOrMaker: this.safeString(fill, 'role'),
      price: this.cents(this.safeInteger(fill, 'priceCents')),
      amount: this.safeInteger(fill, 'quantity'),
      cost: this.cents(this.safeInteger(fill, 'notionalCents')),
      fee: this.feeOf(this.safeInteger(fill, 'feeCents')),
      outcome: this.outcomeHandle(
        optionId,
        label,
        this.safeString(fill, 'eventSlug'),
        this.safeString(fill, 'optionLabel'),
      ),
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      info: fill,
    });
  }

  /**
   * An execution of the public tape from one outcome's point of view: its price in that outcome, and `buy` when
   * the taker's order raised that outcome's holding (BUY of it, or SELL of the other side).
   */
  tapeTradeOf(trade: Dict, optionId: string, label: OutcomeLabel): PredictionTrade {
    const at = this.safeString(trade, 'at');
    const takerSide = this.safeString(trade, 'takerSide');
    const takerBuys = this.safeString(trade, 'takerAction') === 'BUY';
    return this.safePredictionTrade({
      id: this.safeString(trade, 'id'),
      timestamp: this.parse8601(at),
      datetime: at,
      side: (takerSide === label) === takerBuys ? 'buy' : 'sell',
      takerOrMaker: 'taker',
      price: this.sidePrice(this.safeInteger(trade, 'yesPriceCents'), label),
      amount: this.safeInteger(trade, 'quantity'),
      outcome: this.outcomeHandle(optionId, label),
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      info: trade,
    });
  }

  override parsePredictionPosition(position: Dict): PredictionPosition {
    const optionId = this.safeString(position, 'optionId') as string;
    const label = this.safeString(position, 'side') as OutcomeLabel;
    const resolution = this.safeString(position, 'resolution');
    return this.safePredictionPosition({
      id: this.safeString(position, 'id'),
      outcome: this.outcomeHandle(
        optionId,
        label,
        this.safeString(position, 'eventSlug'),
        this.safeString(position, 'optionLabel'),
      ),
      outcomeId: this.outcomeIdOf(optionId, label),
      label,
      contracts: this.safeInteger(position, 'quantity'),
      contractSize: 1,
      side: 'long',
      notional: this.cents(this.safeInteger(position, 'valueCents')),
      unrealizedPnl: this.cents(this.safeInteger(position, 'unrealizedPnlCents')),
      realizedPnl: this.cents(this.safeInteger(position, 'realizedPnlCents')),
      collateral: this.cents(this.safeInteger(position, 'costCents')),
      entryPrice: this.cents(this.safeInteger(position, 'avgPriceCents')),
      markPrice: this.cents(this.safeInteger(position, 'markPriceCents')),
      resolved: resolution !== undefined,
      won: resolution === undefined || resolution === 'VOID' ? undefined : resolution === label,
      info: position,
    });
  }

  parseSettlement(settlement: Dict): PredictionSettlement {
    const optionId = this.safeString(settlement, 'optionId') as string;
    const label = this.safeString(settlement, 'side') as OutcomeLabel;
    const result = this.safeString(settlement, 'outcome');
    const settled = this.safeString(settlement, 'settledAt');
    const payout = this.cents(this.safeInteger(settlement, 'payoutCents'));
    const pnl = this.cents(this.safeInteger(settlement, 'pnlCents'));
    const amount = this.safeInteger(settlement, 'quantity') ?? 0;
    return {
      info: settlement,
      id: this.safeString(settlement, 'id'),
      timestamp: this.parse8601(settled),
      datetime: settled,
      outcome: this.outcomeHandle(
        optionId,
        label,
        this.safeString(settlement, 'eventSlug'),
        this.safeString(settlement, 'optionLabel'),
      ),
      outcomeId: this.outcomeIdOf(optionId, label),
      market: this.slugToMarketSymbol(
        this.safeString(settlement, 'eventSlug'),
        this.safeString(settlement, 'optionLabel'),
      ),
      result,
      won: result === label,
      amount,
      price: amount > 0 && payout !== undefined ? payout / amount : undefined,
      cost: payout !== undefined && pnl !== undefined ? payout - pnl : undefined,
      payout,
      pnl,
    };
  }

  /** A candle of the YES price from one outcome's point of view (a NO candle's high is 1 − the YES low). */
  candleOf(candle: Dict, label: OutcomeLabel): OHLCV {
    const price = (key: string) => this.sidePrice(this.safeInteger(candle, key), label) as number;
    const yes = label === 'YES';
    return [
      this.parse8601(this.safeString(candle, 't')) as number,
      price('o'),
      price(yes ? 'h' : 'l'),
      price(yes ? 'l' : 'h'),
      price('c'),
      this.safeInteger(candle, 'v') as number,
    ];
  }

  feeOf(feeCents: number | undefined): Dict | undefined {
    return feeCents === undefined ? undefined : { cost: feeCents / 100, currency: 'USD' };
  }
}
