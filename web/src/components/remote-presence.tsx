// Everyone else on the canvas, drawn in it (flow coordinates, so they move and zoom with the canvas): their
// pointers with their names, and an outline in their colour around each node they have selected. Decorative for
// assistive technology (the header's avatars say who is here); never in the way of the pointer.
import { useStore as useFlowStore, ViewportPortal } from '@xyflow/react';
import type { CSSProperties } from 'react';
import type { LiveSession } from '../canvas/live-session';
import type { CanvasNode } from '../canvas/model';
import { useStore } from '../hooks/use-live-session';

/** The size a node is drawn at (measured once shown; a typical size before that). */
const sizeOf = (node: CanvasNode) => ({ width: node.measured?.width ?? 260, height: node.measured?.height ?? 300 });

export function RemotePresence({ session, nodes }: { session: LiveSession; nodes: CanvasNode[] }) {
  const peers = useStore(session.peers);
  const zoom = useFlowStore((s) => s.transform[2]);
  if (peers.length === 0) return null;
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const counter = 1 / zoom; // labels and pointers keep their size at any zoom

  return (
    <ViewportPortal>
      <div className="remote-presence" aria-hidden="true">
        {peers.flatMap((peer) =>
          peer.selection.flatMap((id) => {
            const node = byId.get(id);
            if (!node) return [];
            const { width, height } = sizeOf(node);
            const style = { '--peer': peer.user.color, transform: `translate(${node.position.x - 4}px, ${node.position.y - 4}px)`, width: width + 8, height: height + 8 } as CSSProperties;
            return [
              <div key={`${peer.clientId}:${id}`} className="remote-selection" data-node-id={id} data-user={peer.user.name} style={style}>
                <span className="remote-tag" style={{ transform: `scale(${counter})` }}>
                  {peer.user.name}
                </span>
              </div>,
            ];
          }),
        )}
        {peers.map(
          (peer) =>
            peer.cursor && (
              <div
                key={peer.clientId}
                className="remote-cursor"
                data-user={peer.user.name}
                style={{ '--peer': peer.user.color, transform: `translate(${peer.cursor.x}px, ${peer.cursor.y}px) scale(${counter})` } as CSSProperties}
              >
                <svg width="18" height="18" viewBox="0 0 18 18">
                  <path d="M1 1 L1 15 L5 11 L8 17 L10.5 16 L7.5 10 L13 10 Z" />
                </svg>
                <span className="remote-tag">{peer.user.name}</span>
              </div>
            ),
        )}
      </div>
    </ViewportPortal>
  );
}
