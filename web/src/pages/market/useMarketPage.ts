import { useRef, useState } from 'react';
import type { Side } from '../../api/types';
import { useAuth } from '../../auth';
import type { PickedPrice } from '../../components/OrderBookView';
import type { Range } from '../../components/PriceChart';
import { usePortfolio } from '../../lib/account-live';
import { useDocumentTitle } from '../../lib/hooks';
import { shownStatus } from '../../lib/market';
import { useLiveMarketData } from '../../lib/market-data';
import { useChartChoice } from './useChartChoice';
import { useDeadline } from './useDeadline';
import { useHoldingsHere } from './useHoldingsHere';
import { useLiveMarket } from './useLiveMarket';
import { useSelectedBook } from './useSelectedBook';

/**
 * The market page's state: the market followed live and its status as of now, the option, side and book price
 * picked (shared by the options table, the book and the ticket), the chart's choices, the selected option's book,
 * and the trader's holdings here.
 */
export function useMarketPage(slug: string) {
  const { signedIn } = useAuth();
  const [range, setRange] = useState<Range>('1d');
  const market = useLiveMarket(slug, range, signedIn);
  const portfolio = usePortfolio(signedIn);
  const [optionId, setOptionId] = useState<string | null>(null);
  const [side, setSide] = useState<Side>('YES');
  const [picked, setPicked] = useState<PickedPrice | null>(null);
  const sharesField = useRef<HTMLInputElement>(null);
  useDocumentTitle(market.data?.title);

  const data = market.data;
  const now = useDeadline(data?.closesAt);
  const status = data ? shownStatus(data.status, data.closesAt, now) : 'open';
  const tradable = Boolean(data) && status === 'open';
  const options = data?.options ?? [];
  const selected = options.find((option) => option.id === optionId) ?? options[0];
  const eventSlug = data?.slug ?? slug;
  const chart = useChartChoice(slug, data, selected);
  useLiveMarketData(
    eventSlug,
    options.map((option) => option.id),
  );
  const books = useSelectedBook(eventSlug, options, selected, tradable, market.onSnapshot);
  const holdings = useHoldingsHere(signedIn, eventSlug, options, status, portfolio.data);
  return {
    signedIn,
    market,
    portfolio,
    status,
    tradable,
    options,
    selected,
    range,
    setRange,
    chart,
    ...books,
    ...holdings,
    side,
    setSide,
    setOptionId,
    picked,
    setPicked,
    sharesField,
  };
}
export type MarketPageState = ReturnType<typeof useMarketPage>;
