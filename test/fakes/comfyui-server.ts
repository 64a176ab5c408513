// A loopback stand-in for a ComfyUI server (docs/research/model-providers.md §3): `POST /upload/image` (multipart),
// `POST /prompt` (an API-format workflow for a client id), the WebSocket `/ws?clientId=` that tells that client its
// prompt's progress and end, `GET /history/{id}`, `GET /view`, `POST /interrupt` and `POST /queue`. Each prompt plays
// the script the test queued: its sampling steps, then success, a failure in a node, a dropped socket, or a hold
// until released. As ComfyUI's validation does, a LoadImage or LoadImageMask naming a file that was not uploaded is
// refused (400 with the node's error), so an inpainting workflow runs only with its mask uploaded.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { Arrivals, ReplyQueue, sendJson, startLoopbackServer, TINY_PNG } from './fake-server.js';
import type { OutputFiles } from './output-files.js';

export interface ComfyScript {
  /** Sampling steps reported (`progress` messages with value 1…steps, max steps). */
  steps?: number;
  /** `served`: the output is this file of the test's `files` host (e.g. `endless.png`), not an image kept here. */
  end?: { kind: 'success'; image?: Buffer; served?: string } | { kind: 'error'; message: string } | { kind: 'disconnect' } | { kind: 'no-output' };
  hold?: boolean;
  /** Refuse the workflow at POST /prompt (400 with node errors). */
  refuse?: boolean;
}

export interface ComfyPrompt {
  id: string;
  clientId: string;
  prompt: Record<string, { class_type: string; inputs: Record<string, unknown> }>;
  interrupted: boolean;
  deleted: boolean;
}

export interface FakeComfyUI {
  baseUrl: string;
  uploads: { name: string; type: string; data: Buffer; mimeType: string }[];
  prompts: ComfyPrompt[];
  script(next: ComfyScript): void;
  release(): void;
  held(): Promise<ComfyPrompt>;
  interrupted(): Promise<ComfyPrompt>;
  close(): Promise<void>;
}

export async function startFakeComfyUI(opts: { files?: OutputFiles } = {}): Promise<FakeComfyUI> {
  const scripts = new ReplyQueue<ComfyScript>({});
  const uploads: FakeComfyUI['uploads'] = [];
  const prompts: ComfyPrompt[] = [];
  const sockets = new Map<string, WebSocket>();
  const outputs = new Map<string, Buffer>();
  const history = new Map<string, unknown>();
  let releaseHeld: (() => void)[] = [];
  let released = false;
  const held = new Arrivals<ComfyPrompt>();
  const interrupted = new Arrivals<ComfyPrompt>();

  const send = (clientId: string, type: string, data: Record<string, unknown>) => sockets.get(clientId)?.send(JSON.stringify({ type, data }));

  async function play(p: ComfyPrompt, script: ComfyScript) {
    const { id, clientId } = p;
    send(clientId, 'execution_start', { prompt_id: id, timestamp: 0 });
    send(clientId, 'executing', { node: '11', display_node: '11', prompt_id: id });
    for (let value = 1; value <= (script.steps ?? 0); value++) send(clientId, 'progress', { value, max: script.steps, prompt_id: id, node: '11' });
    if (script.hold && !released) {
      held.fire(p);
      await new Promise<void>((resolve) => releaseHeld.push(resolve));
    }
    if (p.interrupted) return send(clientId, 'execution_interrupted', { prompt_id: id, node_id: '11', node_type: 'KSampler', executed: [] });
    const end = script.end ?? { kind: 'success' };
    if (end.kind === 'disconnect') return sockets.get(clientId)?.terminate();
    if (end.kind === 'error') {
      return send(clientId, 'execution_error', { prompt_id: id, node_id: '11', node_type: 'KSampler', exception_message: end.message, exception_type: 'RuntimeError', traceback: [] });
    }
    const served = end.kind === 'success' ? end.served : undefined;
    const images = end.kind === 'no-output' ? [] : [{ filename: served ?? `image-canvas_${prompts.indexOf(p) + 1}_.png`, subfolder: '', type: 'output' }];
    if (!served) for (const image of images) outputs.set(image.filename, end.kind === 'success' ? (end.image ?? TINY_PNG) : TINY_PNG);
    history.set(id, { [id]: { prompt: [0, id, p.prompt, {}, ['13']], outputs: images.length ? { '13': { images } } : {}, status: { status_str: 'success', completed: true, messages: [] } } });
    send(clientId, 'executed', { node: '13', display_node: '13', output: { images }, prompt_id: id });
    send(clientId, 'executing', { node: null, prompt_id: id });
  }

  const wss = new WebSocketServer({ noServer: true });
  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const clientId = new URL(req.url ?? '/', 'http://fake').searchParams.get('clientId') ?? '';
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.set(clientId, ws);
      ws.on('close', () => sockets.delete(clientId));
      ws.send(JSON.stringify({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } }, sid: clientId } }));
    });
  };

  const server = await startLoopbackServer(async (req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'POST' && url.pathname === '/upload/image') {
      const form = await new Response(body, { headers: { 'content-type': req.headers['content-type'] ?? '' } }).formData();
      const image = form.get('image');
      if (!(image instanceof File)) return sendJson(res, 400, { error: 'no image' });
      uploads.push({ name: image.name, type: typeof form.get('type') === 'string' ? (form.get('type') as string) : 'input', data: Buffer.from(await image.arrayBuffer()), mimeType: image.type });
      return sendJson(res, 200, { name: image.name, subfolder: '', type: 'input' });
    }
    if (req.method === 'POST' && url.pathname === '/prompt') {
      const parsed = JSON.parse(body.toString('utf8')) as { prompt: ComfyPrompt['prompt']; client_id: string; prompt_id?: string };
      const missing = Object.entries(parsed.prompt).find(([, node]) => /^LoadImage(Mask)?$/.test(node.class_type) && !uploads.some((u) => u.name === node.inputs.image));
      if (missing) {
        const [nodeId, node] = missing;
        return sendJson(res, 400, {
          error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} },
          node_errors: { [nodeId]: { errors: [{ type: 'custom_validation_failed', message: 'Custom validation failed for node', details: `image - Invalid image file: ${String(node.inputs.image)}`, extra_info: {} }], dependent_outputs: [], class_type: node.class_type } },
        });
      }
      const script = scripts.next();
      if (script.refuse) {
        return sendJson(res, 400, {
          error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: '', extra_info: {} },
          node_errors: { '1': { errors: [{ type: 'value_not_in_list', message: 'Value not in list', details: "unet_name: 'qwen_image_edit_fp8_e4m3fn.safetensors' not in []", extra_info: {} }], dependent_outputs: ['13'], class_type: 'UNETLoader' } },
        });
      }
      const p: ComfyPrompt = { id: parsed.prompt_id ?? randomUUID(), clientId: parsed.client_id, prompt: parsed.prompt, interrupted: false, deleted: false };
      prompts.push(p);
      sendJson(res, 200, { prompt_id: p.id, number: prompts.length, node_errors: {} });
      setImmediate(() => void play(p, script));
      return;
    }
    const past = /^\/history\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && past) return sendJson(res, 200, history.get(past[1]) ?? {});
    if (req.method === 'GET' && url.pathname === '/view') {
      const data = outputs.get(url.searchParams.get('filename') ?? '');
      if (!data && opts.files) {
        req.url = `/files/${url.searchParams.get('filename') ?? ''}`;
        if (opts.files.handle(req, res)) return;
      }
      if (!data) return sendJson(res, 404, {});
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': data.length });
      return res.end(data);
    }
    if (req.method === 'POST' && (url.pathname === '/interrupt' || url.pathname === '/queue')) {
      const parsed = JSON.parse(body.toString('utf8') || '{}') as { prompt_id?: string; delete?: string[] };
      for (const p of prompts) {
        if (url.pathname === '/interrupt' && p.id === parsed.prompt_id && !p.interrupted) {
          p.interrupted = true;
          interrupted.fire(p);
        }
        if (url.pathname === '/queue' && parsed.delete?.includes(p.id)) p.deleted = true;
      }
      res.writeHead(200).end();
      return;
    }
    return sendJson(res, 404, { error: `no route ${req.method} ${url.pathname}` });
  }, upgrade);

  return {
    baseUrl: server.origin,
    uploads,
    prompts,
    script: scripts.reply,
    release: () => {
      released = true;
      for (const r of releaseHeld.splice(0)) r();
      releaseHeld = [];
    },
    held: held.next,
    interrupted: interrupted.next,
    close: async () => {
      for (const ws of sockets.values()) ws.terminate();
      wss.close();
      await server.close();
    },
  };
}
