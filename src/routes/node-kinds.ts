// GET /api/node-kinds (public, like the client configuration: it reveals nothing about anyone): every node kind
// with its ports and the JSON Schema of its data (src/kinds/), so API clients, agents and the web client build
// valid nodes and edges.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { KindLimits } from '../kinds/index.js';
import { PORT_VALUES } from '../kinds/index.js';
import { describeKinds } from '../kinds/describe.js';

const PortValue = z.enum(PORT_VALUES as [string, ...string[]]);
const Port = z
  .object({
    name: z.string().describe("the handle name an edge's sourceHandle (an output) or targetHandle (an input) gives"),
    label: z.string().optional(),
    value: PortValue.describe('what travels along the edge; a mask also fits an image input'),
    list: z.boolean().describe('whether the port takes (or gives) a list of values rather than one'),
    default: z.boolean().describe('the port an edge without a handle (absent or null) means'),
  })
  .meta({ id: 'NodePort' });
const NodeKind = z
  .object({
    type: z.string().describe("the node's `type` and its `data.type`"),
    label: z.string(),
    version: z.number().int().describe('changes when what the kind does with the same data changes'),
    inputs: z.array(Port),
    outputs: z.array(Port),
    task: z.string().nullable().describe('the job task a node of this kind runs (start it with POST /api/generations); null: it does not run'),
    data: z.record(z.string(), z.unknown()).describe("JSON Schema (draft 2020-12) of the node's `data`; keys it does not name are dropped by a save"),
  })
  .meta({ id: 'NodeKind' });
const NodeKinds = z.object({ kinds: z.array(NodeKind).describe('in menu order') }).meta({ id: 'NodeKinds' });

export const nodeKindRoutes: FastifyPluginAsyncZod<{ limits: KindLimits }> = async (app, { limits }) => {
  const body: z.infer<typeof NodeKinds> = { kinds: describeKinds(limits) };
  app.get('/api/node-kinds', {
    schema: { tags: ['canvas'], summary: 'Every node kind: its ports and the JSON Schema of its data (no session needed)', response: { 200: NodeKinds } },
  }, async (_req, reply) => reply.header('cache-control', 'no-cache').send(body));
};
