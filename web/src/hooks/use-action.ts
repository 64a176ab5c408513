// One action of a list item at a time (rename, delete, start…): which one is running, and the refusal of the
// last one in the service's words. `run` resolves true when the action succeeded.
import { useState } from 'react';

export function useAction<K extends string>() {
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState<string | null>(null);

  const run = async (kind: K, action: () => Promise<void>): Promise<boolean> => {
    setBusy(kind);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    } finally {
      setBusy(null);
    }
  };

  return { busy, error, run };
}
