// A read-only link's page following the canvas live (docs/api.md "Live canvas", the link token): the project's
// live document opened with the link's token (LINK_TOKEN_PREFIX), read-only — nothing is ever sent, not even presence —
// and mirrored as the plain nodes and edges the page draws; every edit anyone makes shows as it happens. The link
// revoked or replaced meanwhile ends it (`ended`: the page says the link is no longer valid).
import { HocuspocusProvider } from '@hocuspocus/provider';
import { useEffect, useState } from 'react';
import * as Y from 'yjs';
import { canvasMaps } from '../../../src/collab/canvas-doc';
import { collabPath, LINK_TOKEN_PREFIX, readStateless } from '../../../src/collab/protocol';
import { CanvasMirror } from '../canvas/live-doc';

export interface LinkCanvas {
  /** The document's nodes and edges once it has synced (null before: show what the page read over REST). */
  rendered: { nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] } | null;
  /** The link no longer opens the canvas. */
  ended: boolean;
}

export function useLinkCanvas(projectId: string | null, token: string): LinkCanvas {
  const [state, setState] = useState<LinkCanvas>({ rendered: null, ended: false });
  useEffect(() => {
    if (!projectId) return;
    const doc = new Y.Doc();
    const mirror = new CanvasMirror(doc);
    let synced = false;
    const show = () => {
      if (synced) setState((s) => ({ ...s, rendered: { nodes: mirror.nodes, edges: mirror.edges } }));
    };
    const { nodes, edges } = canvasMaps(doc);
    const observers = (['nodes', 'edges'] as const).map((collection) => {
      const root = collection === 'nodes' ? nodes : edges;
      const observer = (events: Array<Y.YEvent<Y.AbstractType<unknown>>>) => {
        if (mirror.update(collection, events)) show();
      };
      root.observeDeep(observer);
      return () => root.unobserveDeep(observer);
    });
    const url = `${window.location.protocol === 'https:' ? 'wss:' : 'ws:'}//${window.location.host}${collabPath(projectId)}`;
    const provider = new HocuspocusProvider({ url, name: projectId, document: doc, token: `${LINK_TOKEN_PREFIX}${token}` });
    provider.awareness?.setLocalState(null); // no one the service knows: not shown to the people on the canvas
    const end = () => {
      setState((s) => ({ ...s, ended: true }));
      provider.destroy();
    };
    provider.on('synced', () => {
      synced = true;
      show();
    });
    provider.on('authenticationFailed', end);
    provider.on('stateless', ({ payload }: { payload: string }) => {
      if (readStateless(payload)?.type === 'access') end();
    });
    return () => {
      for (const stop of observers) stop();
      provider.destroy();
      doc.destroy();
    };
  }, [projectId, token]);
  return state;
}
