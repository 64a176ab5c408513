// A viewer's canvas page: the live document, read-only. Others' changes, pointers and selections show as they
// happen; nothing is ever sent but presence (our pointer). Inside a ReactFlowProvider.
import { useState } from 'react';
import type { LiveSession } from '../canvas/live-session';
import { useLiveCanvas } from '../hooks/use-live-canvas';
import { CanvasView } from './canvas-view';
import { RemotePresence } from './remote-presence';

export function LiveCanvasView({ session }: { session: LiveSession }) {
  const live = useLiveCanvas(session, true);
  const [initiallyEmpty] = useState(() => live.nodes.length === 0);
  return (
    <div className="editor-canvas" {...live.pointer}>
      <CanvasView projectId={session.projectId} nodes={live.nodes} edges={live.edges} onNodesChange={live.onNodesChange} onEdgesChange={live.onEdgesChange} fitView={!initiallyEmpty} memory={session.projectId}>
        <RemotePresence session={session} nodes={live.nodes} />
      </CanvasView>
    </div>
  );
}
