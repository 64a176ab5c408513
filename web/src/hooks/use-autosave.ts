// Auto-save (docs/api.md, "Canvas versions"): 1000 ms after the last change the whole canvas is POSTed with the
// version it was loaded or last saved at. One save in flight at a time; a change made meanwhile is saved
// next. Network and server failures are retried with backoff, always with the newest canvas, so nothing
// typed is lost. A 409 means another tab saved first: saving stops until the page is reloaded.
import { useCallback, useEffect, useEffectEvent, useMemo, useRef, useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { CanvasDoc } from '../canvas/model';

export const SAVE_DEBOUNCE_MS = 1000;
const RETRY_MS = [1000, 2000, 4000, 8000, 15000, 30000];

export type SaveStatus =
  | { kind: 'saved' }
  | { kind: 'saving' }
  | { kind: 'retrying'; offline: boolean }
  | { kind: 'conflict' }
  | { kind: 'failed'; message: string };

interface Saved {
  json: string;
  id?: string;
  version: number;
}

export function useAutosave(projectId: string, doc: CanvasDoc, initial: { id?: string; version: number }) {
  const json = useMemo(() => JSON.stringify(doc), [doc]);
  const latest = useRef({ doc, json });
  latest.current = { doc, json };
  const saved = useRef<Saved>({ json, ...initial });
  const inFlight = useRef(false);
  const stopped = useRef(false);
  const failures = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const mounted = useRef(true);
  const [phase, setPhase] = useState<'idle' | 'saving' | 'retrying' | 'offline' | 'conflict' | 'failed'>('idle');
  const [failure, setFailure] = useState('');

  const schedule = useCallback((delay: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void flushRef.current(), delay);
  }, []);

  const retry = useCallback((offline: boolean) => {
    const delay = RETRY_MS[Math.min(failures.current, RETRY_MS.length - 1)];
    failures.current++;
    setPhase(offline ? 'offline' : 'retrying');
    schedule(delay);
  }, [schedule]);

  const flush = useCallback(async () => {
    if (stopped.current || inFlight.current) return;
    const { doc: body, json: sentJson } = latest.current;
    if (sentJson === saved.current.json) return setPhase('idle');
    inFlight.current = true;
    if (mounted.current) setPhase((p) => (p === 'offline' || p === 'retrying' ? p : 'saving'));
    let outcome: 'ok' | 'retry' | 'offline' | 'stop' = 'stop';
    try {
      const { data, error, response } = await api.POST('/api/user/project/canvas', {
        body: { ...(saved.current.id ? { id: saved.current.id } : {}), projectId, nodes: body.nodes, edges: body.edges, version: saved.current.version },
      });
      if (data) {
        saved.current = { json: sentJson, id: data.id, version: data.version };
        failures.current = 0;
        outcome = 'ok';
      } else if (response.status === 409) {
        stopped.current = true;
        setPhase('conflict');
      } else if (response.status === 401 || response.status === 403 || response.status === 404) {
        stopped.current = true;
        setFailure(response.status === 404 ? 'This project no longer exists' : 'Signed out — sign in again to save');
        setPhase('failed');
      } else if (response.status === 429 || response.status >= 500) {
        outcome = 'retry';
      } else {
        // Refused as it is (400, 413): wait for the next change rather than repeat it.
        setFailure(`Not saved: ${errorMessage(error, `HTTP ${response.status}`)}`);
        setPhase('failed');
      }
    } catch {
      outcome = 'offline';
    } finally {
      inFlight.current = false;
    }
    if (outcome === 'retry' || outcome === 'offline') return retry(outcome === 'offline');
    if (outcome !== 'ok') return;
    if (latest.current.json !== saved.current.json) {
      // Changed while saving: save again (at once when the editor is gone, so nothing is left behind).
      if (!mounted.current) return void flushRef.current();
      setPhase('saving');
      schedule(SAVE_DEBOUNCE_MS);
    } else if (mounted.current) setPhase('idle');
  }, [projectId, retry, schedule]);
  const flushRef = useRef(flush);
  flushRef.current = flush;

  // Each change restarts the debounce, unless a retry is already waiting (it sends the newest canvas).
  // Only a change of the canvas runs this: it reads the phase as it is then (an effect event), so a save
  // that failed is not sent again merely because the phase became 'failed'.
  const changed = useEffectEvent((changedJson: string) => {
    if (stopped.current || changedJson === saved.current.json) return;
    if (phase === 'offline' || phase === 'retrying') return;
    if (phase === 'failed') setPhase('idle');
    if (!inFlight.current) schedule(SAVE_DEBOUNCE_MS);
  });
  useEffect(() => changed(json), [json]);

  // Back online: retry now rather than at the end of the backoff.
  useEffect(() => {
    const online = () => {
      if (phase === 'offline') schedule(0);
    };
    window.addEventListener('online', online);
    return () => window.removeEventListener('online', online);
  }, [phase, schedule]);

  // Leaving the page with unsaved work asks first; leaving the editor inside the app saves at once.
  useEffect(() => {
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!stopped.current && latest.current.json !== saved.current.json) event.preventDefault();
    };
    window.addEventListener('beforeunload', beforeUnload);
    mounted.current = true;
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      mounted.current = false;
      clearTimeout(timer.current);
      if (!stopped.current && latest.current.json !== saved.current.json) void flushRef.current();
    };
  }, []);

  const dirty = json !== saved.current.json;
  const status: SaveStatus =
    phase === 'conflict'
      ? { kind: 'conflict' }
      : phase === 'failed'
        ? { kind: 'failed', message: failure }
        : phase === 'offline' || phase === 'retrying'
          ? { kind: 'retrying', offline: phase === 'offline' }
          : phase === 'saving' || dirty
            ? { kind: 'saving' }
            : { kind: 'saved' };
  return { status, version: saved.current.version };
}
