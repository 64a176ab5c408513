// The editor's graph runs (issue 35 point 6): start one (a node, a node and what follows it, a selection,
// everything), Run again (a new seed written into the node through the live document, then the node run), one Cancel
// for the current run, the estimate that the Run buttons show (one POST …/runs/estimate for every runnable node that
// can run, asked again a moment after the graph changes), and the current run as the run panel lists it: the latest
// run of the project — this tab's, or anyone's whose id appears in a node's `data.run` (a run another editor
// started) — read again whenever the document's run states change, and every few seconds while it runs.
// Nodes read it through RunsContext (absent on a read-only canvas: no Run buttons there).
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { cancelRun, estimateRun, getRun, latestRuns, startRun, type Estimate, type RunMode, type RunView } from '../api/runs';
import type { LiveSession } from '../canvas/live-session';
import type { CanvasEdge, CanvasNode } from '../canvas/model';
import { descendantsOf, documentRuns, estimableIds, estimateSignature, newSeed } from '../canvas/runs';

/** How long the graph must stay unchanged before the estimate is asked again. */
const ESTIMATE_PAUSE_MS = 600;
/** How often a running run is read again besides the document's changes (its end is written after its last node). */
const RUN_POLL_MS = 2000;
/** How long a start waits for this tab's last edits to reach the service (the run is planned from its document). */
const FLUSH_MS = 5000;

export interface RunProblem {
  error: string;
  nodeIds: string[];
}

export interface Runs {
  /** The estimate of every runnable node that can run now (undefined until known, or when none can). */
  estimate: Estimate | undefined;
  edges: readonly CanvasEdge[];
  start: (mode: RunMode, nodeIds?: string[]) => void;
  runAgain: (nodeId: string) => void;
  cancel: () => void;
  /** The current (or latest) run. */
  current: RunView | undefined;
  starting: boolean;
  canceling: boolean;
  /** The last refusal of a start or a cancel, in the service's words. */
  problem: RunProblem | undefined;
  panelOpen: boolean;
  setPanelOpen: (open: boolean) => void;
}

export const RunsContext = createContext<Runs | null>(null);

/** The editor's runs, or null on a canvas that cannot run anything (read-only). */
export const useRunsContext = () => useContext(RunsContext);

/** Resolves once the session has no change of ours the service has not stored (or after `FLUSH_MS`). */
function flushed(session: LiveSession): Promise<void> {
  return new Promise((resolve) => {
    if (session.connection.get().unsynced === 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    };
    const timer = setTimeout(done, FLUSH_MS);
    const unsubscribe = session.connection.subscribe(() => {
      if (session.connection.get().unsynced === 0) done();
    });
  });
}

const newer = (a: RunView | undefined, b: RunView) => !a || a.id === b.id || Date.parse(b.createdAt) >= Date.parse(a.createdAt);

export function useRuns(projectId: string, session: LiveSession, nodes: CanvasNode[], edges: CanvasEdge[]): Runs {
  const latest = useRef({ nodes, edges });
  latest.current = { nodes, edges };

  // The estimate: the runnable nodes that can run (canvas/runs.ts estimableIds); a node the service still says
  // cannot (blocked) is left out with what depends on it, and the rest asked again.
  const [estimate, setEstimate] = useState<Estimate | undefined>(undefined);
  const signature = useMemo(() => estimateSignature(nodes, edges), [nodes, edges]);
  useEffect(() => {
    const abort = new AbortController();
    const timer = setTimeout(() => {
      void (async () => {
        const { nodes, edges } = latest.current;
        let ids = estimableIds(nodes, edges);
        for (let attempt = 0; attempt < 5 && ids.length > 0; attempt++) {
          const answer = await estimateRun(projectId, { mode: 'selection', nodeIds: ids }, abort.signal).catch(() => undefined);
          if (!answer || abort.signal.aborted) return;
          if (answer.ok) return setEstimate(answer.value);
          if (answer.status !== 400 || answer.nodeIds.length === 0) break;
          const out = new Set([...answer.nodeIds, ...descendantsOf(answer.nodeIds, edges)]);
          ids = ids.filter((id) => !out.has(id));
        }
        setEstimate(undefined);
      })();
    }, ESTIMATE_PAUSE_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [projectId, signature]);

  // The current run.
  const [current, setCurrentState] = useState<RunView | undefined>(undefined);
  const currentRef = useRef<RunView | undefined>(undefined);
  const setCurrent = useCallback((run: RunView) => {
    if (!newer(currentRef.current, run)) return;
    currentRef.current = run;
    setCurrentState(run);
  }, []);
  const known = useRef<Set<string> | undefined>(undefined);
  const reading = useRef(new Map<string, boolean>());
  const read = useCallback(
    (runId: string) => {
      // One read of a run at a time; a change while it is read asks once more after it.
      if (reading.current.has(runId)) return void reading.current.set(runId, true);
      reading.current.set(runId, false);
      void getRun(projectId, runId)
        .then((answer) => {
          if (answer.ok) setCurrent(answer.value);
        })
        .finally(() => {
          const again = reading.current.get(runId);
          reading.current.delete(runId);
          if (again) read(runId);
        });
    },
    [projectId, setCurrent],
  );

  // On opening: the project's latest run; the runs the document names now are known (only new ones are read).
  useEffect(() => {
    known.current = documentRuns(latest.current.nodes).runIds;
    void latestRuns(projectId, 1).then((answer) => {
      const run = answer.ok ? answer.value.items[0] : undefined;
      if (run) {
        known.current?.add(run.id);
        setCurrent(run);
      }
    });
  }, [projectId, setCurrent]);

  // The document's run states: only a change of them (not a node moved) reads a run again.
  const docRuns = useMemo(() => documentRuns(nodes), [nodes]);
  const docRunIds = useRef(docRuns.runIds);
  docRunIds.current = docRuns.runIds;
  useEffect(() => {
    if (!known.current) return;
    for (const runId of docRunIds.current) {
      if (known.current.has(runId)) continue;
      known.current.add(runId);
      read(runId); // a run someone else started (or this tab's, before its answer came)
    }
    const run = currentRef.current;
    if (run?.status === 'running') read(run.id);
  }, [docRuns.signature, read]);

  const running = current?.status === 'running' ? current.id : undefined;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => read(running), RUN_POLL_MS);
    return () => clearInterval(timer);
  }, [running, read]);

  const [starting, setStarting] = useState(false);
  const [canceling, setCanceling] = useState(false);
  const [problem, setProblem] = useState<RunProblem | undefined>(undefined);
  const [panelOpen, setPanelOpen] = useState(false);

  const start = useCallback(
    (mode: RunMode, nodeIds?: string[]) => {
      setStarting(true);
      setProblem(undefined);
      void (async () => {
        await flushed(session);
        const answer = await startRun(projectId, mode === 'all' ? { mode } : { mode, nodeIds: nodeIds ?? [] });
        setStarting(false);
        setPanelOpen(true);
        if (answer.ok) {
          known.current?.add(answer.value.id);
          setCurrent(answer.value);
        } else setProblem({ error: answer.error, nodeIds: answer.nodeIds });
      })();
    },
    [projectId, session, setCurrent],
  );

  const runAgain = useCallback(
    (nodeId: string) => {
      const node = latest.current.nodes.find((n) => n.id === nodeId);
      if (!node) return;
      session.step();
      session.setData(nodeId, { seed: newSeed(node.data.seed) });
      start('node', [nodeId]);
    },
    [session, start],
  );

  const cancel = useCallback(() => {
    const run = currentRef.current;
    if (!run || run.status !== 'running') return;
    setCanceling(true);
    void cancelRun(projectId, run.id).then((answer) => {
      setCanceling(false);
      if (answer.ok) setCurrent(answer.value);
      else if (answer.status === 409) read(run.id); // it had already ended
      else setProblem({ error: answer.error, nodeIds: answer.nodeIds });
    });
  }, [projectId, read, setCurrent]);

  return useMemo(
    () => ({ estimate, edges, start, runAgain, cancel, current, starting, canceling, problem, panelOpen, setPanelOpen }),
    [estimate, edges, start, runAgain, cancel, current, starting, canceling, problem, panelOpen],
  );
}
