// Request and response schemas. Types come from these; response schemas are the whitelist of what leaves
// the server; the OpenAPI document is generated from them.
import { z } from 'zod';
import type { Config } from '../config.js';
import { HANDLE_MAX_CHARS, ID_MAX_CHARS, IMAGE_URL_MAX_CHARS, isStorableText } from '../collab/canvas-rules.js';
import { NODE_KINDS, edgeProblem, kindData, kindOf } from '../kinds/index.js';
import { says } from './messages.js';

/** Text PostgreSQL can keep as sent (the canvas rules' definition, src/collab/canvas-rules.ts): refused with 400, never a 500 at the database. */
export { isStorableText };
const UNSTORABLE = 'contains a character that cannot be stored (NUL or a lone surrogate)';

export const ErrorBody = z.object({ error: z.string(), details: z.string().optional() }).meta({ id: 'Error' });

/** 409 of a start into a node whose job is queued or running: that job's id (docs/api.md "Generation jobs"). */
export const NodeBusyBody = ErrorBody.extend({ jobId: z.string().describe("the node's queued or running job: follow or cancel it") })
  .describe('Node is already running: the node has a queued or running job')
  .meta({ id: 'NodeBusy' });

export const User = z
  .object({
    id: z.uuid(),
    email: z.string(),
    name: z.string(),
    image: z.string(),
    createdAt: z.string().describe('ISO 8601'),
    isPro: z.boolean(),
    provider: z.string(),
    paymentsCustomerId: z.string().optional(),
    subscriptionStatus: z.string().optional(),
  })
  .meta({ id: 'User' });

export const Project = z
  .object({ id: z.uuid(), userId: z.string(), name: z.string(), createdDate: z.string().describe('ISO 8601') })
  .meta({ id: 'Project' });

const id = z.string().min(1).max(ID_MAX_CHARS).refine(isStorableText, UNSTORABLE);
/** A node's `data.image` that is not a data: URL (docs/api.md "Canvas"). */
export { IMAGE_URL_MAX_CHARS };

/**
 * The canvas schemas for these limits, made once per limits: the OpenAPI document names `Canvas` once, so every
 * route that shows a canvas must use the same schema instance.
 */
export function canvasSchemas(limits: Config['limits']): ReturnType<typeof makeCanvasSchemas> {
  let schemas = canvasSchemasByLimits.get(limits);
  if (!schemas) canvasSchemasByLimits.set(limits, (schemas = makeCanvasSchemas(limits)));
  return schemas;
}
const canvasSchemasByLimits = new WeakMap<Config['limits'], ReturnType<typeof makeCanvasSchemas>>();

function makeCanvasSchemas(limits: Config['limits']) {
  // One object per kind (src/kinds/), told apart by `type`.
  const kinds = kindData(limits);
  const position = z.object({ x: z.number(), y: z.number() });
  const nodeOfKind = (type: string) => z.object({ id, type: z.literal(type), position, data: kinds.get(type)!.schema });
  const [first, ...more] = NODE_KINDS.map((kind) => nodeOfKind(kind.type));
  // A type no kind has: "Invalid discriminator value. Expected 'upload' | 'generation' | …" at `nodes.<i>.type`.
  const Node = z.discriminatedUnion('type', [first, ...more]);
  const Edge = z.object({
    id,
    source: id,
    target: id,
    sourceHandle: z.string().max(HANDLE_MAX_CHARS).refine(isStorableText, UNSTORABLE).nullish(),
    targetHandle: z.string().max(HANDLE_MAX_CHARS).refine(isStorableText, UNSTORABLE).nullish(),
  });
  const nodesMessage = `A canvas holds at most ${limits.canvasNodes} nodes`;
  const edgesMessage = `A canvas holds at most ${limits.canvasEdges} edges`;
  const CanvasBody = z
    .object({
      id: id.optional(),
      projectId: z.string(says('Project ID is required')).min(1, says('Project ID is required')),
      // Missing means empty: the original client creates a project's canvas with `{ projectId }` alone.
      nodes: z.array(Node).max(limits.canvasNodes, says(nodesMessage)).default(() => []),
      edges: z.array(Edge).max(limits.canvasEdges, says(edgesMessage)).default(() => []),
      version: z.number().int().min(0).refine((v) => v <= 2_147_483_647, 'Too big: a version is at most 2147483647').optional().describe('Current version; a stale one is refused with 409'),
    })
    .superRefine(checkGraph);
  const Canvas = z
    .object({ id: z.string(), projectId: z.string(), nodes: z.array(Node), edges: z.array(Edge), version: z.number().int() })
    .meta({ id: 'Canvas' });
  return { CanvasBody, Canvas };
}

/**
 * A canvas's graph rules (canvases and templates): node ids are unique, edges join known nodes, and an edge's
 * handles name ports its nodes' kinds have, whose values fit (src/kinds/ `edgeProblem`).
 */
function checkGraph(
  canvas: { nodes: Array<{ id: string; type: string }>; edges: Array<{ id: string; source: string; target: string; sourceHandle?: string | null; targetHandle?: string | null }> },
  ctx: z.RefinementCtx,
): void {
  const types = new Map<string, string>();
  for (const node of canvas.nodes) {
    if (types.has(node.id)) ctx.addIssue({ code: 'custom', message: says(`Duplicate node id: ${node.id}`).error, path: ['nodes'] });
    types.set(node.id, node.type);
  }
  for (const [i, edge] of canvas.edges.entries()) {
    const source = kindOf(types.get(edge.source));
    const target = kindOf(types.get(edge.target));
    if (!source || !target) {
      ctx.addIssue({ code: 'custom', message: says(`Edge ${edge.id} references an unknown node`).error, path: ['edges'] });
      return;
    }
    const problem = edgeProblem(edge, source, target);
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem.message, path: ['edges', i, problem.field] });
      return;
    }
  }
}

export const projectName = (max: number) =>
  z.string(says('Invalid project name')).trim().min(1, says('Invalid project name')).max(max, says('Invalid project name')).refine(isStorableText, says('Invalid project name'));

/**
 * Templates (docs/api.md "Templates"): a canvas's nodes and edges under the canvas's own rules (the node and
 * edge schemas of `canvasSchemas`, its count limits, unique node ids, edges between known nodes), a viewport,
 * and a name with the project name's length limit.
 */
export function templateSchemas(limits: Config['limits']): ReturnType<typeof makeTemplateSchemas> {
  let schemas = templateSchemasByLimits.get(limits);
  if (!schemas) templateSchemasByLimits.set(limits, (schemas = makeTemplateSchemas(limits)));
  return schemas;
}
const templateSchemasByLimits = new WeakMap<Config['limits'], ReturnType<typeof makeTemplateSchemas>>();

function makeTemplateSchemas(limits: Config['limits']) {
  const { Canvas } = canvasSchemas(limits);
  const Node = Canvas.shape.nodes.element;
  const Edge = Canvas.shape.edges.element;
  const nameRequired = says('Template name is required').error;
  const nameInvalid = says('Invalid template name').error;
  const canvasRequired = says('Canvas is required').error;
  const name = z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? nameRequired : nameInvalid) })
    .trim()
    .min(1, nameRequired)
    .max(limits.projectNameChars, says(`Template name is too long (at most ${limits.projectNameChars} characters)`))
    .refine(isStorableText, nameInvalid);
  const Viewport = z.object({ x: z.number(), y: z.number(), zoom: z.number().positive() });
  const DEFAULT_VIEWPORT = { x: 0, y: 0, zoom: 1 };

  const TemplateBody = z.object({
    templateName: name,
    canvas: z
      .object(
        {
          nodes: z.array(Node).max(limits.canvasNodes, says(`A canvas holds at most ${limits.canvasNodes} nodes`)).default([]),
          edges: z.array(Edge).max(limits.canvasEdges, says(`A canvas holds at most ${limits.canvasEdges} edges`)).default([]),
          viewport: Viewport.default(DEFAULT_VIEWPORT).describe('finite numbers, zoom above 0'),
        },
        { error: (issue) => (issue.input === undefined || issue.input === null ? canvasRequired : undefined) },
      )
      .superRefine(checkGraph),
  });

  const Template = z
    .object({
      id: z.uuid(),
      templateName: z.string(),
      user: z.object({ name: z.string(), image: z.string() }).describe("the author's current name and picture URL (possibly empty)"),
      canvas: z.object({ nodes: z.array(Node), edges: z.array(Edge), viewport: Viewport }),
      createdAt: z.string().describe('ISO 8601'),
      mine: z.boolean().describe("true when the request carries the author's session"),
    })
    .meta({ id: 'Template' });
  const TemplateSummary = z
    .object({
      id: z.uuid(),
      name: z.string(),
      author: z.object({ name: z.string(), image: z.string() }).describe("the author's current name and picture URL (possibly empty)"),
      nodeCount: z.number().int(),
      edgeCount: z.number().int(),
      previewUrl: z.string().nullable().describe('the first node image that is a web address (http(s) or a path here); null when there is none'),
      createdAt: z.string().describe('ISO 8601'),
      mine: z.boolean().describe("true when the request carries the author's session"),
    })
    .meta({ id: 'TemplateSummary' });
  const TemplateCanvas = z
    .object({ id: z.uuid(), name: z.string(), canvas: z.object({ nodes: z.array(Node), edges: z.array(Edge), viewport: Viewport }) })
    .meta({ id: 'TemplateCanvas' });
  return { TemplateBody, Template, TemplateSummary, TemplateCanvas };
}

/** Sharing (docs/api.md "Sharing"). */
export function sharingSchemas(limits: Config['limits']) {
  const { Canvas } = canvasSchemas(limits);
  const MemberRole = z.enum(['editor', 'viewer']);
  const Person = z.object({ email: z.string(), name: z.string() });
  const Member = z
    .object({ email: z.string().describe('lower-cased'), role: MemberRole, createdAt: z.string().describe('ISO 8601, when first invited') })
    .meta({ id: 'ProjectMember' });
  const invalidEmail = says('Invalid email');
  const Invite = z.object({
    email: z.email(invalidEmail).max(254, invalidEmail).describe('the person to invite (matched case-insensitively)'),
    role: z.enum(['editor', 'viewer'], says('Role must be editor or viewer')),
  });
  const Members = z
    .object({ owner: Person, members: z.array(Member).describe('oldest invitation first') })
    .meta({ id: 'ProjectMembers' });
  const SharedProject = Project.extend({ role: MemberRole.describe('your role'), owner: Person }).meta({ id: 'SharedProject' });
  const ShareLink = z
    .object({ token: z.string().describe('256 random bits, base64url; shown only now'), url: z.string().describe('GET it without signing in') })
    .meta({ id: 'ShareLink' });
  const SharedCanvas = z
    .object({ project: z.object({ id: z.uuid(), name: z.string() }), canvas: Canvas.nullable().describe('as GET /api/user/project/canvas answers its owner') })
    .meta({ id: 'SharedCanvas' });
  return { Invite, Member, Members, SharedProject, ShareLink, SharedCanvas };
}

export const VERSION_NAME_MAX_CHARS = 200;

/** History (docs/api.md "History"): versions of a project's canvas, a version's preview and a restore. */
export function versionsSchemas(limits: Config['limits']) {
  const { Canvas } = canvasSchemas(limits);
  const Version = z
    .object({
      id: z.uuid(),
      kind: z.enum(['auto', 'named']).describe('`auto`: a restore point the service took; `named`: a version someone named'),
      name: z.string().nullable().describe('a named version’s name; null for a restore point'),
      createdAt: z.string().describe('ISO 8601'),
      createdBy: z.uuid().nullable().describe('the user who named it; null for a restore point'),
    })
    .meta({ id: 'CanvasVersion' });
  const nameRequired = says('Version name is required').error;
  const nameInvalid = says('Invalid version name').error;
  const NameVersion = z.object({
    name: z
      .string({ error: (issue) => (issue.input === undefined || issue.input === null ? nameRequired : nameInvalid) })
      .trim()
      .min(1, nameRequired)
      .max(VERSION_NAME_MAX_CHARS, says(`Version name is too long (at most ${VERSION_NAME_MAX_CHARS} characters)`))
      .refine(isStorableText, nameInvalid),
  });
  const Versions = z.object({ versions: z.array(Version).describe('newest first, at most 100') }).meta({ id: 'CanvasVersions' });
  const VersionPreview = z
    .object({ version: Version, canvas: Canvas.pick({ nodes: true, edges: true }).describe('the version’s canvas; no node is shown generating') })
    .meta({ id: 'CanvasVersionPreview' });
  const Restored = z.object({ canvas: Canvas }).describe('the canvas after the restore, as GET /api/user/project/canvas answers it').meta({ id: 'CanvasRestored' });
  return { Version, NameVersion, Versions, VersionPreview, Restored };
}
