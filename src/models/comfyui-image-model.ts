// A user's own ComfyUI server (COMFYUI_URL) over its HTTP and WebSocket API (docs/research/model-providers.md §3;
// ComfyUI has no official JS SDK, so plain fetch and Node's WebSocket): each input is uploaded (`POST /upload/image`),
// the workflow with its placeholders filled (./comfyui-workflow.ts) is queued (`POST /prompt`) for this call's own
// client id, whose WebSocket (`/ws?clientId=`) tells the sampling steps and when it is done or failed; the first
// output image is read from the history (`GET /history/{id}`) and fetched (`GET /view`). An aborted call interrupts
// the prompt and takes it out of the queue. A server that drops the socket mid-job fails the call with a reason.
// As `comfyui-inpaint` (an inpainting workflow) an edit's mask is uploaded too, and named in the `{{mask}}` placeholder.
import { randomInt, randomUUID } from 'node:crypto';
import { type GenerateRequest, type GenerateResult, type ImageModel, ModelFailedError } from './image-model.js';
import { DEFAULT_MAX_OUTPUT_BYTES, extensionFor, isAbortError, networkReason, readBoundedBody, shortReason } from './driver-support.js';
import { fillWorkflow, type Workflow } from './comfyui-workflow.js';

export interface ComfyUIOptions {
  /** `comfyui-inpaint`: the workflow inpaints (has `{{mask}}`), and the request's mask is uploaded for it. Default `comfyui`. */
  id?: 'comfyui' | 'comfyui-inpaint';
  /** The server, e.g. http://gpu-box:8188 (no trailing slash needed). */
  baseUrl: string;
  workflow: Workflow;
  maxOutputBytes?: number;
}


interface Socket {
  /** Resolves when the prompt has run (rejects with the reason when it failed, was interrupted or the socket closed). */
  done(): Promise<void>;
  close(): void;
}

export class ComfyUIImageModel implements ImageModel {
  readonly id: 'comfyui' | 'comfyui-inpaint';
  private readonly base: string;

  constructor(private readonly options: ComfyUIOptions) {
    this.id = options.id ?? 'comfyui';
    this.base = options.baseUrl.replace(/\/+$/, '');
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const { signal } = req;
    const clientId = randomUUID();
    // Our own prompt id (ComfyUI takes one): an abort while POST /prompt is on its way can still name the prompt.
    const promptId = randomUUID();
    let queued = false;
    let socket: Socket | undefined;
    try {
      const names = [];
      const inpaints = this.id === 'comfyui-inpaint';
      if (inpaints && !req.mask) throw new ModelFailedError('the ComfyUI inpainting workflow inpaints a mask, and was given none');
      for (const [i, image] of req.images.entries()) names.push(await this.upload(image.data, image.mimeType, i, signal));
      // Only an inpainting workflow is sent the mask (white edits; its LoadImageMask reads a colour channel).
      const mask = inpaints && req.mask ? { mask: await this.upload(req.mask.data, req.mask.mimeType, 'mask', signal) } : {};
      socket = await this.connect(clientId, promptId, req);
      const prompt = fillWorkflow(this.options.workflow, { prompt: req.prompt, seed: req.seed ?? randomInt(0, 2 ** 47), images: names, ...mask });
      queued = true;
      await this.queue(prompt, clientId, promptId, signal);
      await socket.done();
      req.onAnswered?.(); // the workflow ran
      return await this.output(promptId, signal);
    } catch (err) {
      if (queued && signal.aborted) void this.interrupt(promptId);
      throw this.toModelError(err, signal);
    } finally {
      socket?.close();
    }
  }

  private async upload(data: Buffer, mimeType: string, index: number | 'mask', signal: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(data)], { type: mimeType }), `image-canvas-${randomUUID()}-${index === 'mask' ? index : index + 1}.${extensionFor(mimeType)}`);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const answer = (await this.json(await fetch(`${this.base}/upload/image`, { method: 'POST', body: form, signal }), 'upload')) as { name?: unknown; subfolder?: unknown };
    if (typeof answer.name !== 'string') throw new ModelFailedError('the ComfyUI server did not name the uploaded image');
    return typeof answer.subfolder === 'string' && answer.subfolder ? `${answer.subfolder}/${answer.name}` : answer.name;
  }

  private async queue(prompt: Workflow, clientId: string, promptId: string, signal: AbortSignal): Promise<void> {
    const response = await fetch(`${this.base}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt, client_id: clientId, prompt_id: promptId }), signal });
    if (response.status === 400) {
      const body = (await response.json().catch(() => ({}))) as { error?: { message?: unknown }; node_errors?: Record<string, { class_type?: string; errors?: { message?: string; details?: string }[] }> };
      const [nodeId, node] = Object.entries(body.node_errors ?? {})[0] ?? [];
      const first = node?.errors?.[0];
      const where = node ? ` (node ${nodeId} ${node.class_type ?? ''}: ${first?.message ?? ''}${first?.details ? `, ${first.details}` : ''})` : '';
      throw new ModelFailedError(shortReason(`the ComfyUI server refused the workflow: ${typeof body.error?.message === 'string' ? body.error.message : 'invalid prompt'}${where}`));
    }
    const answer = (await this.json(response, 'prompt')) as { prompt_id?: unknown };
    if (answer.prompt_id !== promptId) throw new ModelFailedError('the ComfyUI server did not queue the prompt under the id it was given');
  }

  /** Opens this call's WebSocket; its messages say the steps (onProgress) and the end of the prompt. */
  private connect(clientId: string, promptId: string, req: GenerateRequest): Promise<Socket> {
    const ws = new WebSocket(`${this.base.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(clientId)}`);
    ws.binaryType = 'arraybuffer';
    let settle: { resolve(): void; reject(err: Error): void } | undefined;
    let ended: Error | null | undefined; // null: done; an Error: failed; undefined: still running
    const end = (outcome: Error | null) => {
      if (ended !== undefined) return;
      ended = outcome;
      if (settle && outcome) settle.reject(outcome);
      else settle?.resolve();
    };
    const abort = () => end(new ModelFailedError('Image model call was aborted'));
    req.signal.addEventListener('abort', abort, { once: true });
    ws.addEventListener('message', (event: MessageEvent) => {
      if (typeof event.data !== 'string') return; // preview images (binary frames): not used
      let message: { type?: string; data?: Record<string, unknown> };
      try {
        message = JSON.parse(event.data) as typeof message;
      } catch {
        return;
      }
      const data = message.data ?? {};
      if (data.prompt_id !== promptId) return; // another prompt's (a broadcast interrupt), or none's (the queue's status)
      if (message.type === 'progress' && typeof data.value === 'number' && typeof data.max === 'number') req.onProgress?.({ step: { done: data.value, total: data.max } });
      else if (message.type === 'executing' && data.node === null) end(null);
      else if (message.type === 'execution_success') end(null);
      else if (message.type === 'execution_error') end(new ModelFailedError(shortReason(`the workflow failed in node ${String(data.node_id)} (${String(data.node_type)}): ${typeof data.exception_message === 'string' ? data.exception_message : 'no reason given'}`)));
      else if (message.type === 'execution_interrupted') end(new ModelFailedError('the ComfyUI server interrupted the workflow'));
    });
    ws.addEventListener('close', () => end(new ModelFailedError('the ComfyUI server closed the connection before the workflow finished')));
    return new Promise((resolve, reject) => {
      const opened = () => {
        ws.removeEventListener('error', failed);
        resolve({
          done: () =>
            new Promise<void>((ok, fail) => {
              settle = { resolve: ok, reject: fail };
              if (ended) fail(ended);
              else if (ended === null) ok();
            }),
          close: () => {
            req.signal.removeEventListener('abort', abort);
            ws.close();
          },
        });
      };
      const failed = () => {
        req.signal.removeEventListener('abort', abort);
        reject(new ModelFailedError(`the ComfyUI server's WebSocket could not be opened at ${this.base}`));
      };
      ws.addEventListener('open', opened, { once: true });
      ws.addEventListener('error', failed, { once: true });
    });
  }

  /** The prompt's first output image, from its history. */
  private async output(promptId: string, signal: AbortSignal): Promise<GenerateResult> {
    const history = (await this.json(await fetch(`${this.base}/history/${encodeURIComponent(promptId)}`, { signal }), 'history')) as Record<string, { outputs?: Record<string, { images?: { filename?: string; subfolder?: string; type?: string }[] }> }>;
    const outputs = history[promptId]?.outputs ?? {};
    const image = Object.values(outputs).flatMap((o) => o.images ?? []).find((i) => typeof i.filename === 'string');
    if (!image) return { model: this.id, modelVersion: this.id };
    const query = new URLSearchParams({ filename: image.filename!, subfolder: image.subfolder ?? '', type: image.type ?? 'output' });
    const response = await fetch(`${this.base}/view?${query}`, { signal });
    if (!response.ok) throw new ModelFailedError(`the ComfyUI server's output could not be read (HTTP ${response.status})`);
    // The operator's own server, not a URL from outside: no SSRF guard, but the size is bounded while reading.
    const tooLarge = () => new ModelFailedError('the ComfyUI server returned an image larger than allowed');
    const bytes = await readBoundedBody(response, this.options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES, tooLarge);
    return { image: { data: bytes, mimeType: response.headers.get('content-type')?.split(';')[0] ?? 'image/png' }, model: this.id, modelVersion: this.id };
  }

  /** Stops the prompt if it runs, and takes it out of the queue if it waits. Never rejects. */
  private async interrupt(promptId: string): Promise<void> {
    const post = (path: string, body: unknown) => fetch(`${this.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).catch(() => undefined);
    await Promise.all([post('/interrupt', { prompt_id: promptId }), post('/queue', { delete: [promptId] })]);
  }

  private async json(response: Response, what: string): Promise<unknown> {
    if (!response.ok) throw new ModelFailedError(shortReason(`the ComfyUI server answered ${what} with HTTP ${response.status}: ${await response.text().catch(() => '')}`));
    try {
      return await response.json();
    } catch {
      throw new ModelFailedError(`the ComfyUI server's ${what} answer is not JSON`);
    }
  }

  private toModelError(err: unknown, signal: AbortSignal): Error {
    if (err instanceof ModelFailedError) return err;
    if (signal.aborted || isAbortError(err)) return new ModelFailedError(signal.aborted ? 'Image model call was aborted' : 'Image model call was cut off');
    return new ModelFailedError(shortReason(`the ComfyUI server cannot be reached: ${networkReason(err)}`));
  }
}
