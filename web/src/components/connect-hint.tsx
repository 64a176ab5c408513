// While a connection is started by a click or a tap on a handle (xyflow's connectOnClick: on a phone, tap an
// image's output, then a generation node's input), a note says what to do next, with Cancel; Escape cancels
// too. Screen readers hear it (a status).
import { Panel, useStore, useStoreApi } from '@xyflow/react';
import { useEffect } from 'react';
import { useNodeName } from '../canvas/names';

export function ConnectHint() {
  const start = useStore((s) => s.connectionClickStartHandle);
  const store = useStoreApi();
  const name = useNodeName(start?.nodeId);
  const cancel = () => store.setState({ connectionClickStartHandle: null });

  useEffect(() => {
    if (!start) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') store.setState({ connectionClickStartHandle: null });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [start, store]);

  return (
    <Panel position="bottom-center" className="connect-hint-panel">
      <div role="status" className={start ? 'connect-hint' : 'visually-hidden'}>
        {start && (
          <>
            <span>
              Connecting {start.type === 'source' ? 'from the output' : 'into the input'} of {name ?? 'a node'}: now{' '}
              {start.type === 'source' ? 'tap or click the input of a generation node' : 'tap or click an output'}.
            </span>
            <button type="button" className="button small ghost" onClick={cancel}>
              Cancel
            </button>
          </>
        )}
      </div>
    </Panel>
  );
}
