// Inline images of canvas nodes (docs/api.md "Canvas"): older clients keep a node's picture in `data.image` as a
// `data:<type>;base64,…` URL and send it again with every save. Each one is stored as a file by the upload rules
// (type from the bytes, SVG → PNG, UPLOAD_MAX_BYTES; uploads.prepareContent) under a name derived from its
// content, and the node keeps the file's public URL: re-sending the same image writes nothing new.
// Used by canvas saves; any other document of nodes (templates) can use it the same way.
import { AppError, invalidNodeImage } from '../errors.js';
import { decodeDataUrl, isDataUrl } from '../net/data-url.js';
import { ImageFetchError } from '../net/errors.js';
import type { ContentImage, UploadsService } from './uploads.js';

/** What this module reads of a node: its id (named in errors) and its image; other fields are kept as they are. */
export interface ImageNode {
  readonly [key: string]: unknown;
  id: string;
  data: { readonly [key: string]: unknown; image?: string };
}

export interface InlinedImages<N extends ImageNode> {
  /** The nodes, each data: URL image replaced by its file's URL (new node objects; other nodes as given). */
  nodes: N[];
  /** How many files `store()` writes (images not stored yet). */
  newFiles: number;
  /** Writes the new files (a failure is 500 Failed to upload file; files already written stay). */
  store(): Promise<void>;
}

export interface CanvasImages {
  /**
   * Check and name every data: URL image of `nodes`, for `owner` (files are named per owner). Each distinct data
   * URL is decoded, hashed and checked once; a file already stored is neither rasterized nor written again.
   * Nothing is written until `store()`, so a refusal stores nothing: the first bad image in node order is
   * `400 Invalid image in node <id>` with the reason in `details`.
   */
  inline<N extends ImageNode>(nodes: readonly N[], owner: string): Promise<InlinedImages<N>>;
}

export interface CanvasImagesDeps {
  uploads: Pick<UploadsService, 'prepareContent'>;
  /** UPLOAD_MAX_BYTES: the decoded image at most. */
  maxBytes: number;
}

/** Whether any node's image is a data: URL (cheap: the one question the hot path asks). */
export const hasInlineImages = (nodes: readonly ImageNode[]): boolean => nodes.some((n) => n.data.image !== undefined && isDataUrl(n.data.image));

/**
 * The nodes as they will be stored (inline images replaced by their files' URLs) and the file writes still to do
 * (`store` is undefined when there are none): the one way a document of nodes takes inline images. The caller
 * decides when to write, after its own checks, so a refused save stores nothing.
 */
export async function prepareInlineImages<N extends ImageNode>(images: CanvasImages, nodes: N[], owner: string): Promise<{ nodes: N[]; store?: () => Promise<void> }> {
  if (!hasInlineImages(nodes)) return { nodes };
  const inlined = await images.inline(nodes, owner);
  return { nodes: inlined.nodes, store: inlined.newFiles > 0 ? () => inlined.store() : undefined };
}

const BASE64_HEADER = /^data:[^,]{0,256};base64,/i;
const TYPED_HEADER = /^data:[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+;base64,/i;

/** A data: URL that cannot be decoded; `reason` is safe to show. */
class BadDataUrl extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function createCanvasImages({ uploads, maxBytes }: CanvasImagesDeps): CanvasImages {
  /** The bytes of a data: URL (its declared type is ignored: the type comes from the bytes). */
  function decode(url: string): Buffer {
    if (!BASE64_HEADER.test(url)) throw new BadDataUrl('not a base64 data URL (data:<type>;base64,<data>)');
    try {
      return decodeDataUrl(url, maxBytes);
    } catch (err) {
      if (!(err instanceof ImageFetchError)) throw err;
      if (err.reason === 'too large') throw new BadDataUrl(`the image is larger than ${maxBytes} bytes (the upload limit)`);
      if (err.reason === 'empty data URL') throw new BadDataUrl('the data URL is empty');
      throw new BadDataUrl(TYPED_HEADER.test(url) ? 'malformed data URL: not valid base64' : 'malformed data URL: expected data:<type>/<subtype>;base64,');
    }
  }

  return {
    async inline(nodes, owner) {
      const byUrl = new Map<string, ContentImage>();
      const out = nodes.slice();
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[i];
        const image = node.data.image;
        if (image === undefined || !isDataUrl(image)) continue;
        let file = byUrl.get(image);
        if (!file) {
          try {
            file = await uploads.prepareContent(decode(image), owner);
          } catch (err) {
            if (err instanceof BadDataUrl) throw invalidNodeImage(node.id, err.reason);
            // The upload rules' refusals (type, size, unreadable SVG), worded for the node.
            if (err instanceof AppError && err.code !== 'upload_failed' && err.code !== 'storage_unavailable') throw invalidNodeImage(node.id, err.details ? `${err.message}: ${err.details}` : err.message);
            throw err;
          }
          byUrl.set(image, file);
        }
        out[i] = { ...node, data: { ...node.data, image: file.url } };
      }
      const pending = [...byUrl.values()].filter((f) => f.isNew);
      return {
        nodes: out,
        newFiles: pending.length,
        async store() {
          for (const file of pending) await file.store();
        },
      };
    },
  };
}
