// Uploading files into the canvas: into an existing upload node (its image replaced), or as new upload nodes.
//
// A new node is added only once its file is stored, with the image: one undo step, and a failed, refused or
// offline upload leaves no empty node behind (nothing was written, so nothing needs taking back). Until then the
// file is shown in the upload tray (canvas/upload-tray.ts) with its progress; a node whose image is being replaced
// shows its progress itself. Before sending, a file is checked against what the service takes (its type and the
// size limit, GET /api/client-config): a refusal says why in words, and an image over the limit is offered a
// downscale in the browser (canvas/downscale.ts) and sent again. The service's own refusals are said the same
// way; a failure (offline, the service down) offers to try again. Files are sent a few at once
// (canvas/upload-pacer.ts); one refused for the upload limit (429) waits in the tray for the service's Retry-After and
// is sent again by itself, never dropped.
import { useCallback, useEffect, useMemo, useRef, type RefObject } from 'react';
import { UploadError, uploadImage } from '../api/upload';
import { track } from '../analytics';
import type { ActivityStore } from '../canvas/activity';
import { downscaleImage } from '../canvas/downscale';
import type { EditorActions, UploadSource } from '../canvas/editor-context';
import type { LiveSession } from '../canvas/live-session';
import { linkPorts } from '../canvas/kinds';
import { createNode, newId, toSavedNode } from '../canvas/model';
import { InOrder } from '../canvas/in-order';
import { gridCells } from '../canvas/placement';
import { UploadPacer } from '../canvas/upload-pacer';
import { UploadTray, type TrayEntry } from '../canvas/upload-tray';
import {
  acceptedType,
  canDownscale,
  DEFAULT_UPLOAD_RULES,
  fileName,
  notAcceptedMessage,
  tooLargeMessage,
  type UploadRules,
} from '../canvas/upload-rules';
import { useClientConfig } from './use-client-config';
import type { FlowState } from './use-live-canvas';


export interface Uploads {
  uploadFiles: EditorActions['uploadFiles'];
  tray: UploadTray;
  rules: UploadRules;
  /** Makes the image of a refused entry smaller, then sends it again. */
  downscale: (id: string) => void;
  /** Sends a failed entry again. */
  retry: (id: string) => void;
  dismiss: (id: string) => void;
}

type Outcome = Partial<Omit<TrayEntry, 'id'>>;

/** What a refusal or a failure of the service means for the person, and what they can do. */
function outcome(err: unknown, file: File, rules: UploadRules): Outcome {
  const name = fileName(file);
  if (!(err instanceof UploadError)) return { state: 'failed', message: `${name} was not uploaded: ${(err as Error).message}`, offer: 'retry' };
  switch (err.status) {
    case 413:
      return { state: 'refused', message: tooLargeMessage(file, rules), offer: canDownscale(file) ? 'downscale' : undefined };
    case 400:
      if (err.message === 'Unsupported file type') return { state: 'refused', message: notAcceptedMessage(file, rules), offer: undefined };
      return { state: 'refused', message: `${name} was refused: ${err.message}${err.details ? ` (${err.details})` : ''}`, offer: undefined };
    case 401:
      return { state: 'failed', message: `${name} was not uploaded: you are signed out.`, offer: undefined };
    case 0:
      return {
        state: 'failed',
        message: navigator.onLine ? `${name} was not uploaded: the server could not be reached.` : `${name} was not uploaded: you are offline.`,
        offer: 'retry',
      };
    default:
      return { state: 'failed', message: `${name} was not uploaded: ${err.message}`, offer: 'retry' };
  }
}

/**
 * `onAdded(nodeId, source)`: a new image node was added to the document for a stored file (the editor focuses one
 * added from the toolbar's file picker).
 */
export function useUploads(session: LiveSession, latest: RefObject<FlowState>, activity: ActivityStore, onAdded?: (nodeId: string, source: UploadSource) => void): Uploads {
  const added = useRef(onAdded);
  added.current = onAdded;
  const tray = useMemo(() => new UploadTray(), []);
  const rules = useClientConfig()?.uploads ?? DEFAULT_UPLOAD_RULES;
  /** Each new-node entry of a batch of files: its batch and place in it (its node is created in the files' order). */
  const turns = useRef(new Map<string, { order: InOrder; index: number }>());
  const rulesNow = useRef(rules);
  useEffect(() => {
    rulesNow.current = rules;
  }, [rules]);

  const transferNow = useRef<(id: string) => Promise<void>>(async () => undefined);
  const pacer = useMemo(() => new UploadPacer(tray, (id) => transferNow.current(id)), [tray]);
  useEffect(() => {
    pacer.open();
    return () => pacer.close();
  }, [pacer]);

  /** Checks the entry's file, sends it, and puts the stored image where it goes (when the pacer says it may go). */
  const transfer = useCallback(
    async (id: string) => {
      const entry = tray.find(id);
      if (!entry) return;
      const { file, destination, source } = entry;
      const turn = turns.current.get(id);
      /** The files after this one need not wait for its node (refused, failed). */
      const skipTurn = () => turn?.order.skip(turn.index);
      const limits = rulesNow.current;
      if (acceptedType(file, limits) === false) {
        skipTurn();
        return tray.update(id, { state: 'refused', message: notAcceptedMessage(file, limits), offer: undefined });
      }
      if (file.size > limits.maxBytes) {
        skipTurn();
        return tray.update(id, { state: 'refused', message: tooLargeMessage(file, limits), offer: canDownscale(file) ? 'downscale' : undefined });
      }
      const into = 'nodeId' in destination ? destination.nodeId : undefined;
      tray.update(id, { state: 'uploading', progress: 0, message: undefined, offer: undefined, retryAt: undefined });
      if (into) activity.update(into, { uploadProgress: 0 });
      try {
        const { url } = await uploadImage(file, (fraction) => {
          tray.update(id, { progress: fraction });
          if (into) activity.update(into, { uploadProgress: fraction });
        });
        pacer.sent();
        tray.remove(id);
        if ('nodeId' in destination) {
          activity.update(destination.nodeId, { uploadProgress: undefined });
          if (!latest.current.nodes.some((n) => n.id === destination.nodeId)) return; // removed meanwhile (by anyone)
          session.step();
          session.setData(destination.nodeId, { image: url });
        } else {
          // Where the editor placed it when the file was added (in view, clear of the nodes there then); created
          // once the files chosen before it have their nodes (or were refused), so names follow the files' order.
          const addNode = () => {
            turns.current.delete(id);
            const node = createNode('upload', destination.position);
            node.data.image = url;
            const feeds = destination.feeds;
            // Into the first input of the node it feeds that an image fits (if that node is still there).
            const fed = feeds === undefined ? undefined : latest.current.nodes.find((n) => n.id === feeds);
            const ports = fed && linkPorts({ type: node.type }, { type: fed.type });
            session.step();
            session.add({ nodes: [toSavedNode(node)], ...(fed && ports ? { edges: [{ id: newId('edge'), source: node.id, target: fed.id, ...ports }] } : {}) });
            added.current?.(node.id, source);
          };
          if (turn) turn.order.ready(turn.index, addNode);
          else addNode();
        }
        track('image_uploaded', { source, bytes: file.size });
      } catch (err) {
        if (into) activity.update(into, { uploadProgress: undefined });
        // Held for the upload limit: sent again in its place (the files after it wait for its node).
        if (err instanceof UploadError && err.status === 429) return pacer.limited(id, err.retryAfterSeconds);
        skipTurn();
        tray.update(id, outcome(err, file, rulesNow.current));
      }
    },
    [activity, latest, pacer, session, tray],
  );
  transferNow.current = transfer;
  /** Queues the entry: sent when fewer than a few are on their way and the upload limit allows. */
  const send = useCallback((id: string) => pacer.enqueue(id), [pacer]);

  const uploadFiles = useCallback<EditorActions['uploadFiles']>(
    (files, target) => {
      if (files.length === 0) return;
      if (target.nodeId) {
        if (!latest.current.nodes.some((n) => n.id === target.nodeId)) return;
        void send(tray.add({ file: files[0], destination: { nodeId: target.nodeId }, source: target.source, state: 'uploading' }));
        return;
      }
      // Files added together form a grid in their order, its top-left at `at` (the editor placed it clear of other
      // nodes, canvas/placement.ts); each node appears once its file is stored and those before it have theirs.
      const cells = gridCells(files.length, target.at ?? { x: 0, y: 0 });
      const order = new InOrder(files.length);
      const ids = files.map((file, i) => {
        const entry = tray.add({ file, destination: { position: cells[i], ...(target.feeds ? { feeds: target.feeds } : {}) }, source: target.source, state: 'uploading' });
        turns.current.set(entry, { order, index: i });
        return entry;
      });
      for (const entry of ids) void send(entry);
    },
    [latest, send, tray],
  );

  const downscale = useCallback(
    (id: string) => {
      const entry = tray.find(id);
      if (!entry) return;
      tray.update(id, { state: 'downscaling', offer: undefined, message: undefined });
      downscaleImage(entry.file, rulesNow.current.maxBytes).then(
        (smaller) => {
          tray.update(id, { file: smaller });
          void send(id);
        },
        (err: Error) => tray.update(id, { state: 'refused', message: `${fileName(entry.file)} could not be made smaller: ${err.message}.`, offer: undefined }),
      );
    },
    [send, tray],
  );

  const retry = useCallback((id: string) => void send(id), [send]);
  const dismiss = useCallback(
    (id: string) => {
      turns.current.delete(id);
      tray.remove(id);
    },
    [tray],
  );

  return { uploadFiles, tray, rules, downscale, retry, dismiss };
}
