// What connecting needs said, in a status line at the bottom of the canvas (screen readers hear it):
// - while a connection is started by a click or a tap on a handle (xyflow's connectOnClick: on a phone, tap an
//   image's output, then a generation node's input), what to do next, with Cancel; Escape cancels too;
// - while a connection dragged over an input that does not fit (src/kinds `fits`: a text into an image input), why
//   it would be refused, beside the pointer as well;
// - once such a connection was let go (or clicked), why it was refused, until dismissed or the next connection.
import { Panel, useStore, useStoreApi, ViewportPortal, type Connection } from '@xyflow/react';
import { useEffect } from 'react';
import { useNodeName } from '../canvas/names';

interface Props {
  /** Why a connection would be refused; undefined when it fits. */
  problemOf: (connection: Connection) => string | undefined;
  /** Why the last connection let go was refused, until the next one starts. */
  refused: string | null;
  onDismiss: () => void;
}

export function ConnectHint({ problemOf, refused, onDismiss }: Props) {
  const start = useStore((s) => s.connectionClickStartHandle);
  const store = useStoreApi();
  const name = useNodeName(start?.nodeId);
  const cancel = () => store.setState({ connectionClickStartHandle: null });
  // The input (or output) a dragged connection is over, when it does not fit: why, and where the pointer is.
  const over = useStore((s) => {
    const c = s.connection;
    if (!c.inProgress || !c.toHandle || c.isValid !== false) return null;
    const [from, to] = c.fromHandle.type === 'source' ? [c.fromHandle, c.toHandle] : [c.toHandle, c.fromHandle];
    return JSON.stringify({ source: from.nodeId, sourceHandle: from.id ?? null, target: to.nodeId, targetHandle: to.id ?? null, x: c.to.x, y: c.to.y });
  });
  const hovering = over ? (JSON.parse(over) as Connection & { x: number; y: number }) : null;
  const why = hovering ? problemOf(hovering) : undefined;

  useEffect(() => {
    if (!start) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') store.setState({ connectionClickStartHandle: null });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [start, store]);

  const message = why ?? (start ? null : refused);
  return (
    <>
      {why && hovering && (
        <ViewportPortal>
          <div className="connect-refusal-tip" aria-hidden="true" style={{ transform: `translate(${hovering.x + 16}px, ${hovering.y + 16}px)` }}>
            {why}
          </div>
        </ViewportPortal>
      )}
      <Panel position="bottom-center" className="connect-hint-panel">
        <div role="status" className={start || message ? 'connect-hint' : 'visually-hidden'} data-testid="connect-hint">
          {message ? (
            <>
              <span>
                {why ? 'Does not fit: ' : 'Not connected: '}
                {message}
              </span>
              {!why && (
                <button type="button" className="button small ghost" onClick={onDismiss}>
                  Dismiss
                </button>
              )}
            </>
          ) : (
            start && (
              <>
                <span>
                  Connecting {start.type === 'source' ? 'from the output' : 'into the input'} of {name ?? 'a node'}: now{' '}
                  {start.type === 'source' ? 'tap or click an input it fits' : 'tap or click an output'}.
                </span>
                <button type="button" className="button small ghost" onClick={cancel}>
                  Cancel
                </button>
              </>
            )
          )}
        </div>
      </Panel>
    </>
  );
}
