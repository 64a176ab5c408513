// The example canvas (docs/api.md "Example canvas"): a person's first project can start with two pictures and a
// generation node connected to both, with a prompt the offline engine understands, to show how the canvas works.
// Its nodes are ordinary nodes, marked `data.example: true` so the editor can offer to clear them. The pictures
// ship with the service (src/assets/) and are stored as the user's own images, named by their content: asked for
// again (any project of the same user), they are not stored again. The example goes only into an empty canvas —
// checked in the same document transaction that adds it — so asking twice, or after editing, changes nothing.
// Owners and editors may ask (`edit`: a viewer gets 403); anyone else gets `404 Project not found`.
import { check } from '../auth/project-access.js';
import { applyCanvas, canvasMaps, type CanvasContent } from '../collab/canvas-doc.js';
import type { LiveDocuments } from '../collab/live-documents.js';
import type { CanvasesRepository } from '../db/repositories/index.js';
import { projectNotFound } from '../errors.js';
import { isUuid } from '../ids.js';
import type { UploadsService } from './uploads.js';

/** The generation node's prompt: words the offline engine knows (src/models/local-operations.ts), plain English for the others. */
export const EXAMPLE_PROMPT = 'Put the two pictures side by side, then make it sepia';

/** The example's nodes and edges, with the stored pictures' URLs. */
export function exampleCanvas([first, second]: readonly [string, string]): CanvasContent {
  const upload = (id: string, y: number, image: string) => ({ id, type: 'upload', position: { x: 0, y }, data: { type: 'upload', image, example: true } });
  return {
    nodes: [
      upload('example-picture-1', 0, first),
      upload('example-picture-2', 340, second),
      { id: 'example-generation', type: 'generation', position: { x: 380, y: 120 }, data: { type: 'generation', prompt: EXAMPLE_PROMPT, example: true } },
    ],
    edges: [
      { id: 'example-edge-1', source: 'example-picture-1', target: 'example-generation' },
      { id: 'example-edge-2', source: 'example-picture-2', target: 'example-generation' },
    ],
  };
}

export interface ExampleCanvasService {
  /** Puts the example into the project's canvas if it is empty; whether it did, and the canvas version after. */
  seed(userId: string, projectId: string): Promise<{ seeded: boolean; version: number }>;
}

export interface ExampleCanvasDeps {
  canvases: Pick<CanvasesRepository, 'current'>;
  live: Pick<LiveDocuments, 'open'>;
  uploads: Pick<UploadsService, 'prepareContent'>;
  /** The two pictures (src/assets/example-canvas.ts). */
  images: () => Promise<Buffer[]>;
}

export function createExampleCanvasService({ canvases, live, uploads, images }: ExampleCanvasDeps): ExampleCanvasService {
  return {
    async seed(userId, projectId) {
      if (!isUuid(projectId)) throw projectNotFound();
      const found = check(await canvases.current({ userId }, projectId), 'edit');
      const document = await live.open(projectId);
      try {
        const isEmpty = () => {
          const { nodes, edges } = canvasMaps(document.doc);
          return nodes.size === 0 && edges.size === 0;
        };
        if (!isEmpty()) return { seeded: false, version: found.version ?? 0 };
        const pictures = await Promise.all((await images()).map((data) => uploads.prepareContent(data, userId)));
        for (const picture of pictures) await picture.store();
        const example = exampleCanvas([pictures[0].url, pictures[1].url]);
        let seeded = false;
        // Checked again inside the change: someone may have drawn on the canvas while the pictures were stored.
        const version = await document.change((doc) => {
          if (!isEmpty()) return;
          applyCanvas(doc, example);
          seeded = true;
        });
        return { seeded, version: version ?? found.version ?? 0 };
      } finally {
        await document.close();
      }
    },
  };
}
