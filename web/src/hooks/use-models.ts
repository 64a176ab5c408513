// GET /api/models (docs/api.md "Models"): the image models this deployment runs, for the generation node's picker.
// Fetched once per page load, only when signed in (a read-only link's visitor may not be), and shared by every
// node. A failed fetch is not kept: the next node shown asks again. Until it answers, or when it fails, the
// catalogue is unknown and the picker offers only the default model (and the node's own choice).
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import type { ModelCatalogue } from '../canvas/model-choice';
import { useSession } from './use-session';

let pending: Promise<ModelCatalogue> | undefined;
let loaded: ModelCatalogue | undefined;

function loadModels(): Promise<ModelCatalogue> {
  pending ??= api.GET('/api/models').then(
    ({ data }) => (data ? (loaded = { state: 'loaded', models: data.models }) : failed()),
    failed,
  );
  return pending;
}

function failed(): ModelCatalogue {
  pending = undefined;
  return { state: 'unavailable' };
}

export function useModels(): ModelCatalogue {
  const signedIn = useSession().status === 'authenticated';
  const [catalogue, setCatalogue] = useState<ModelCatalogue>(loaded ?? { state: 'loading' });
  useEffect(() => {
    if (!signedIn || loaded) return;
    let live = true;
    void loadModels().then((c) => live && setCatalogue(c));
    return () => {
      live = false;
    };
  }, [signedIn]);
  if (loaded) return loaded;
  return signedIn ? catalogue : { state: 'unavailable' };
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 3 });

/** A price in US dollars as the picker shows it: "$0.039". */
export const formatUsd = (amount: number): string => usd.format(amount);
