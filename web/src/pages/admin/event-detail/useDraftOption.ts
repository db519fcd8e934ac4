import { type FormEvent, useState } from 'react';
import { apiClient, typed } from '../../../api/client';
import type { MarketDetail, OptionDetail } from '../../../api/types';
import { useAction } from '../../../lib/hooks';
import { toCents } from '../credits';

/** A draft option's label, house liquidity and starting price as typed, and their saving. */
export function useDraftOption(
  event: MarketDetail,
  option: OptionDetail,
  onSaved: (e: MarketDetail) => void,
) {
  const [label, setLabel] = useState(option.label);
  const [liquidity, setLiquidity] = useState(String(option.houseLiquidityCents / 100));
  const [price, setPrice] = useState(String(option.yesPriceCents));
  const save = useAction(async () =>
    onSaved(
      await typed(
        apiClient.PATCH('/api/admin/events/{id}/options/{optionId}', {
          params: { path: { id: event.id, optionId: option.id } },
          body: {
            label: label.trim(),
            // An exclusive event's options share the event's one maker: its liquidity is set on the event.
            ...(event.exclusive ? {} : { liquidityCents: toCents(liquidity) }),
            initialPriceCents: Number(price),
          },
        }),
      ),
    ),
  );
  return {
    label,
    setLabel,
    liquidity,
    setLiquidity,
    price,
    setPrice,
    pending: save.pending,
    error: save.error,
    submit: (e: FormEvent) => {
      e.preventDefault();
      void save.run();
    },
  };
}
