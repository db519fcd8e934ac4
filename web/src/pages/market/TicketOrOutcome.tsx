import type { MarketDetail } from '../../api/types';
import { DisputeButton } from '../../components/DisputeButton';
import { OutcomePanel } from '../../components/OutcomePanel';
import { TradeTicket } from '../../components/trade-ticket';
import type { MarketPageState } from './useMarketPage';

/** Beside the market: the ticket while it trades, else its outcome (with a dispute for those who held it). */
export function TicketOrOutcome({ page, data }: { page: MarketPageState; data: MarketDetail }) {
  const { selected, signedIn, held, settlements } = page;
  return (
    <div className="area-ticket">
      {selected && page.tradable ? (
        <TradeTicket
          market={data}
          optionId={selected.id}
          onOption={page.setOptionId}
          side={page.side}
          onSide={page.setSide}
          book={page.book}
          positions={held}
          picked={page.picked}
          sharesField={page.sharesField}
        />
      ) : (
        <OutcomePanel
          market={data}
          status={page.status}
          held={held}
          settlements={signedIn ? { data: settlements.data?.data, error: settlements.error } : null}
        >
          <DisputeButton market={data} heldPosition={held.length > 0 || page.hasTraded} />
        </OutcomePanel>
      )}
    </div>
  );
}
